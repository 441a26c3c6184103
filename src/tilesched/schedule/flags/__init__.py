"""Planning Ascend-style flag synchronization (``insert-sync``), shared with ``reorder-events``.

Pure: items in program order (a unit each, queued or inline on the issuer) and their
dependences in, ``set_flag`` / ``wait_flag`` pairs, ``pipe_barrier`` and ``barrier_all`` with
event ids out; nothing here knows the IR. The rules (DESIGN.md §4):

* Units are in-order queues, so a wait for producer ``k`` on a unit also covers every earlier
  producer there: a consumer that needs several producers on one unit waits once, for the latest.
* A dependence already implied by happens-before (a chain of earlier flags, issue order, a
  barrier) gets nothing; happens-before is tracked with static vector clocks, the relation the
  simulator uses.
* An inline consumer of queued work needs the issuer to wait: ``barrier_all``. Same-unit
  dependences need ``pipe_barrier`` only on pipelined units.
* Event ids: at most ``limit`` per directed pair, and an id is reused only when the wait of
  its previous use happens-before the new set. When none is free, the pair's pending flags are
  waited for early and a ``barrier_all`` frees every id: never over the limit, never a failure.

Modules by concern: :mod:`.ops` (items and sync ops), :mod:`.clocks` (happens-before),
:mod:`.pool` (event ids: the one allocation rule), :mod:`.plan` (straight-line code in one
pass), :mod:`.loop` (loop bodies: back-edge flags), :mod:`.tracker` (the same plan built one
item at a time, for ``reorder-events``' scheduler).
"""

from tilesched.schedule.flags.clocks import StaticClocks
from tilesched.schedule.flags.loop import LoopFlagPlan, plan_loop_flags, reuse_is_safe
from tilesched.schedule.flags.ops import (
    BARRIER_ALL,
    PIPE_BARRIER,
    SET,
    WAIT,
    Item,
    SyncOp,
    count_fallbacks,
    ids_used,
)
from tilesched.schedule.flags.plan import FlagPlan, plan_flags
from tilesched.schedule.flags.pool import EventPool
from tilesched.schedule.flags.tracker import FlagTracker

__all__ = [
    "BARRIER_ALL", "PIPE_BARRIER", "SET", "WAIT", "EventPool", "FlagPlan", "FlagTracker", "Item",
    "LoopFlagPlan", "StaticClocks", "SyncOp", "count_fallbacks", "ids_used", "plan_flags",
    "plan_loop_flags", "reuse_is_safe",
]
