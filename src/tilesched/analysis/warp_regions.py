"""Warp-pipelined regions in lowered code, as other passes must see them.

``warp-pipeline`` brackets each pipeline (or chain of back-to-back pipelines) of a block between
the high group's ``sync.cond_barrier`` (the phase shift) and the low group's (the reconvergence).
Between the two the groups run one stage apart, so a barrier inserted there by another pass would
break the pairing of barriers: passes such as ``insert-sync`` treat the span as a unit, add
nothing inside it, and assume that everything it accessed may still be in flight after it (the
high group still runs the last stage when the low group has left the span).
"""

from __future__ import annotations

from xdsl.ir import Operation

from tilesched.analysis.effects import Access, effects_of
from tilesched.analysis.stage_dependences import PRIVATE_SPACES
from tilesched.ir.blocks import body_ops
from tilesched.ir.types import memory_space


def is_cond_barrier(op: Operation, group: str) -> bool:
    group_attr = op.properties.get("group") if op.name == "sync.cond_barrier" else None
    return group_attr is not None and group_attr.data == group


def warp_span_end(ops: list[Operation], start: int) -> int | None:
    """If ``ops[start]`` opens a warp-pipelined span (the high group's ``cond_barrier``), the
    index of the low group's ``cond_barrier`` that closes it; else None."""
    if not is_cond_barrier(ops[start], "high"):
        return None
    for end in range(start + 1, len(ops)):
        if is_cond_barrier(ops[end], "low"):
            return end
    return None


def is_private(region) -> bool:
    """Is the region in a per-group (private) space, registers?"""
    return memory_space(region.root.type) in PRIVATE_SPACES


def span_accesses(span: list[Operation]) -> tuple[Access, ...]:
    """What a span leaves possibly unfinished or unordered for the code after it: every access
    to memory both groups share (private registers: each group awaits its own LDS results when
    it next touches them, DESIGN.md §4)."""
    return tuple(access for op in span for access in effects_of(op).accesses
                 if not is_private(access.region))


def cluster_barriers(root: Operation) -> list[Operation]:
    """The ``sync.barrier`` ops inside the warp-pipelined spans under ``root`` (the pipelines'
    cluster barriers), in program order."""
    found: list[Operation] = []
    for block in (b for op in root.walk() for r in op.regions for b in r.blocks):
        ops = body_ops(block)
        for start in range(len(ops)):
            end = warp_span_end(ops, start)
            if end is not None:
                for op in ops[start + 1:end]:
                    found += [inner for inner in op.walk() if inner.name == "sync.barrier"]
    return found


def local_barrier_count(root: Operation) -> int:
    """How many of the cluster barriers under ``root`` are local (wait for LDS traffic)."""
    return sum("local" in bar.properties for bar in cluster_barriers(root))
