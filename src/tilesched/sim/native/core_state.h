/* C++ state of the compiled engine core (core.pyx): vector clocks, access histories, queue items
   and the live-event sweep, each the C++ form of a Python structure of engine/ (named where it is
   defined). Declared to Cython in core_state.pxd; included by the generated core.cpp. */
#ifndef TILESCHED_SIM_NATIVE_CORE_STATE_H
#define TILESCHED_SIM_NATIVE_CORE_STATE_H

#include <Python.h>

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>
#include <deque>
#include <cstdint>

typedef std::vector<int64_t> VCv;
typedef std::shared_ptr<VCv> VC;

static inline VC vc_new(size_t n) { return std::make_shared<VCv>(n, 0); }
static inline bool vc_null(const VC& v) { return !v; }
static inline bool vc_same(const VC& a, const VC& b) { return a.get() == b.get(); }
static inline int64_t vc_at(const VC& v, size_t i) { return (*v)[i]; }
static inline VC vc_with(const VC& v, size_t agent, int64_t epoch) {
    VC out = std::make_shared<VCv>(*v); (*out)[agent] = epoch; return out;
}
static inline VC vc_join(const VC& a, const VC& b) {
    if (!b || a.get() == b.get()) return a;
    VC out = std::make_shared<VCv>(*a);
    for (size_t i = 0; i < out->size(); i++) if ((*b)[i] > (*out)[i]) (*out)[i] = (*b)[i];
    return out;
}

struct Region { int nd; int64_t v[8]; };
struct RegionHash {
    size_t operator()(const Region& r) const {
        uint64_t h = 1469598103934665603ULL ^ (uint64_t)r.nd;
        for (int i = 0; i < 2 * r.nd; i++) { h ^= (uint64_t)r.v[i]; h *= 1099511628211ULL; }
        return (size_t)h;
    }
};
struct RegionEq {
    bool operator()(const Region& a, const Region& b) const {
        if (a.nd != b.nd) return false;
        for (int i = 0; i < 2 * a.nd; i++) if (a.v[i] != b.v[i]) return false;
        return true;
    }
};
static inline bool region_overlap(const Region& a, const Region& b) {
    int n = a.nd < b.nd ? a.nd : b.nd;
    for (int d = 0; d < n; d++)
        if (a.v[2 * d] >= b.v[2 * d + 1] || b.v[2 * d] >= a.v[2 * d + 1]) return false;
    return true;
}

/* One agent's recent accesses of one kind to one buffer, in epoch order, one entry per
   region (happens_before.py keys them by (region, location); for detecting whether a
   race exists the newest access per region subsumes older ones). */
struct Entry { int64_t epoch; Region r; bool dead; };
struct Table {
    int64_t newest = 0;
    std::vector<Entry> entries;
    std::unordered_map<Region, size_t, RegionHash, RegionEq> index;
    size_t dead = 0;
    /* returns 1 when the region is new to the table */
    int put(const Region& r, int64_t epoch) {
        int fresh = 1;
        auto it = index.find(r);
        if (it != index.end()) {
            entries[it->second].dead = true; dead++; it->second = entries.size(); fresh = 0;
        } else {
            index.emplace(r, entries.size());
        }
        entries.push_back(Entry{epoch, r, false});
        newest = epoch;
        if (dead > 64 && 2 * dead > entries.size()) keep_after(INT64_MIN);
        return fresh;
    }
    /* Keeps the live entries newer than floor; returns how many are kept. */
    size_t keep_after(int64_t floor) {
        std::vector<Entry> kept;
        index.clear();
        for (auto& e : entries) {
            if (!e.dead && e.epoch > floor) { index.emplace(e.r, kept.size()); kept.push_back(e); }
        }
        entries.swap(kept);
        dead = 0;
        return entries.size();
    }
    bool conflicts(const Region& r, int64_t limit) const {
        for (size_t k = entries.size(); k-- > 0;) {
            const Entry& e = entries[k];
            if (e.epoch <= limit) return false;
            if (!e.dead && region_overlap(r, e.r)) return true;
        }
        return false;
    }
};
struct AgentHist { int agent; Table writes; Table reads; };
struct BufHist { std::vector<AgentHist> per; };

struct Access { int64_t buf; bool write; Region r; };

struct QItem { int code; int64_t x; int64_t op; PyObject* acc; int64_t avail; VC ivc; };
struct Mark { int64_t end; VC vc; };
struct Arrival { int issuer; int64_t time; VC vc; };
struct PendingSet { int64_t time; VC vc; int64_t op; };
struct LastWait { bool has; int64_t time; int64_t epoch; int64_t op; int64_t set_op; };
struct Win { int64_t buf; bool write; int64_t op; Region r; };

struct Ev { int64_t t; int cls; int delta; };
static inline bool ev_less(const Ev& a, const Ev& b) {
    if (a.t != b.t) return a.t < b.t;
    if (a.cls != b.cls) return a.cls < b.cls;
    return a.delta < b.delta;
}
/* flags.py _PairSweep: live events of one directed unit pair, swept in time order. */
struct PairSweep {
    std::vector<int> flags;
    std::vector<int> agents;
    std::vector<Ev> events, later;
    int64_t live = 0, peak = 0;
    size_t limit = 4096;
    void sweep(int64_t frontier, bool final) {
        std::vector<Ev> pool(later);
        pool.insert(pool.end(), events.begin(), events.end());
        std::sort(pool.begin(), pool.end(), ev_less);
        size_t cut = pool.size();
        if (!final) {
            cut = 0;
            while (cut < pool.size() && pool[cut].t < frontier) cut++;
        }
        for (size_t k = 0; k < cut; k++) { live += pool[k].delta; if (live > peak) peak = live; }
        later.assign(pool.begin() + cut, pool.end());
        events.clear();
        limit = std::max((size_t)4096, 2 * later.size());
    }
};


static inline void sort64(std::vector<int64_t>& v) { std::sort(v.begin(), v.end()); }

#endif
