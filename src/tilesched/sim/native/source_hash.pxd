# The source hash setup.py compiles into each twin (TILESCHED_SOURCE_HASH, see sources.py); a
# module built without it (not by setup.py) records "" and counts as stale.
cdef extern from *:
    """
    #ifndef TILESCHED_SOURCE_HASH
    #define TILESCHED_SOURCE_HASH ""
    #endif
    """
    const char* TILESCHED_SOURCE_HASH
