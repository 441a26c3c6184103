"""The ``insert-sync`` pass: the synchronization each target family needs.

- flags (Ascend): ``insert_sync.flags.FlagSync`` — set/wait pairs per cross-unit
  dependence not already implied, event ids within the target's limit and
  reused only along happens-before, back-edge flags for loop-carried
  dependences (pre-set before the loop, drained after it);
- groups (CUDA cp.async): ``sync_groups`` — a commit after each run of async
  copies and, before each consumer, a ``wait_group`` with the largest correct
  ``pending``;
- barriers (AMD): ``sync.barrier {local}`` before accesses that conflict
  with LDS accesses since the last local barrier, at the points
  ``analysis/lds_barriers.py`` finds (Triton's Membar analysis, as few as
  correct; a group's own LDS results in registers need none). Async global->LDS copies
  (``pipe = "ASYNC0"``) first get their commit / wait groups as on group targets; the local
  barrier their readers in the other group need then follows the wait.

On a split-core target (``ascend-a2-mix``) the flag plan runs on the core-qualified units and
the pairs it puts between two cores become ``sync.cross_set`` / ``sync.cross_wait``
(``insert_sync.cross_core``).

Existing flags and pipe barriers are re-planned (removed and inserted anew);
other existing sync ops stay.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from tilesched.analysis.fusion_annotations import refresh_fusion_groups
from tilesched.analysis.lds_barriers import local_barrier_points
from tilesched.analysis.units import unit_kind
from tilesched.ir.blocks import functions, insert_before
from tilesched.ir.sync import make_local_barrier
from tilesched.transforms.pass_base import TileContext, TilePass, option, paused_gc


@dataclass(frozen=True)
class InsertSyncPass(TilePass):
    """Insert the synchronization the target needs: event flags, cp.async groups or barriers."""

    name = "insert-sync"
    role = "required"
    naive: bool = option(False, "baseline for benchmarks: a flag per dependence, serialized loops")
    legacy: bool = option(False, "the previous flag plan, for comparisons: one back-edge flag per "
                                 "unit pair, barrier_all around nested multi-unit regions")
    rolled: bool = option(True, "rotating event ids (index operands, base + (i + c) mod M) for "
                                "a rolled loop's prefetch into the next iteration's slot")

    def run(self, module: ModuleOp, env: TileContext) -> None:
        with paused_gc():
            self._synchronize(module, env)

    def _synchronize(self, module: ModuleOp, env: TileContext) -> None:
        family = env.target.sync
        for function in functions(module):
            block = function.body.block
            if family == "flags":
                from tilesched.transforms.insert_sync.flags import FlagSync

                sync = FlagSync(env.target, naive=self.naive, legacy=self.legacy,
                                rolled=self.rolled)
                sync.run_function(block)
                if env.target.cores:
                    from tilesched.transforms.insert_sync.cross_core import cross_core_flags

                    cross_core_flags(block, env.target)
                for region_op, reason in sync.barrier_regions:
                    env.warn(f"barrier_all before and after this region: no flag plan fits, {reason}",
                             region_op)
                for loop in sync.serialized_loops:
                    env.warn("event ids would be re-set before their previous wait completes; "
                             "this loop's iterations are serialized with barrier_all", loop)
                peaks = env.remarks.setdefault("peak_events", {})
                for pair, count in sync.peak_events.items():  # the most over all functions
                    peaks[pair] = max(peaks.get(pair, 0), count)
            elif family == "groups":
                from tilesched.transforms.insert_sync.groups import sync_groups

                sync_groups(block, env.target)
            else:
                if any(unit_kind(op, env.target)[1] == "async" for op in block.walk()):
                    # async global->LDS copies (AMD async queue): their groups and waits first,
                    # as on group targets; the local barrier then goes after each wait
                    from tilesched.transforms.insert_sync.groups import sync_groups

                    sync_groups(block, env.target)
                for op in local_barrier_points(block, env.target):
                    insert_before(op, [make_local_barrier()])
        # spans other families' sync had to break lose their marks
        refresh_fusion_groups(module, env.target)


PASS = InsertSyncPass
