"""Software-pipeline arithmetic (``software-pipeline``), without the IR: stage/iteration order
(:mod:`.stages`), commit groups and exact wait counts (:mod:`.waits`), multi-buffer slot counts
(:mod:`.slots`).

The "graph" is a list of :class:`.stages.StagedOp` (stage, order, accesses) with dependence
kinds: every question the pass asks is about the relative order of two instances of body ops,
which stage and order alone decide.
"""
