"""Scheduling algorithms on small graph types, independent of the IR (DESIGN.md §1).

- :mod:`.modulo` — Rau-style modulo scheduling and exact minimum II on :class:`~.modulo.graph.ScheduleGraph`
  (also the HatScheT benchmark graphs);
- :mod:`.reorder` — event-aware list scheduling of one block for ``reorder-events`` on a
  :class:`~.reorder.segment.Segment`;
- :mod:`.pipeline` — stage arithmetic, exact wait counts and slot counts for ``software-pipeline``
  on :class:`~.pipeline.stages.StagedOp` lists;
- :mod:`.flags` — Ascend flag and event-id planning (batch for ``insert-sync``, one item at a
  time for ``reorder-events``).

DESIGN.md asks for "one small graph type"; there are three, each shaped by what its algorithm
needs: modulo scheduling needs latencies, resource footprints and iteration distances; block
reordering needs units, inline/control/boundary kinds and the dependences that decide flags;
software pipelining needs only stage and order per op plus dependence kinds. None imports the IR.
"""
