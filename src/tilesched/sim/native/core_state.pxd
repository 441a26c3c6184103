# Cython declarations of core_state.h (the C++ state of the compiled engine core, core.pyx).
from cpython.ref cimport PyObject
from libc.stdint cimport int64_t
from libcpp.vector cimport vector


cdef extern from "core_state.h":
    cppclass VC:
        VC()
    VC vc_new(size_t n)
    bint vc_null(const VC& v)
    bint vc_same(const VC& a, const VC& b)
    int64_t vc_at(const VC& v, size_t i)
    VC vc_with(const VC& v, size_t agent, int64_t epoch)
    VC vc_join(const VC& a, const VC& b)

    cppclass Region:
        int nd
        int64_t v[8]
    bint region_overlap(const Region& a, const Region& b)

    cppclass Table:
        int64_t newest
        int put(const Region& r, int64_t epoch)
        size_t keep_after(int64_t floor)
        bint conflicts(const Region& r, int64_t limit)
    cppclass AgentHist:
        int agent
        Table writes
        Table reads
    cppclass BufHist:
        vector[AgentHist] per
    cppclass Access:
        int64_t buf
        bint write
        Region r
    cppclass QItem:
        int code
        int64_t x
        int64_t op
        PyObject* acc
        int64_t avail
        VC ivc
    cppclass Mark:
        int64_t end
        VC vc
    cppclass Arrival:
        int issuer
        int64_t time
        VC vc
    cppclass PendingSet:
        int64_t time
        VC vc
        int64_t op
    cppclass LastWait:
        bint has
        int64_t time
        int64_t epoch
        int64_t op
        int64_t set_op
    cppclass Win:
        int64_t buf
        bint write
        int64_t op
        Region r
    cppclass Ev:
        int64_t t
        int cls
        int delta
    cppclass PairSweep:
        vector[int] flags
        vector[int] agents
        vector[Ev] events
        int64_t peak
        size_t limit
        void sweep(int64_t frontier, bint final)
    void _sort64 "sort64"(vector[int64_t]& v)
