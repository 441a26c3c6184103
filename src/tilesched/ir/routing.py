"""Which unit (and, on a split-core target, which core) runs a tile op: the target's routing
rules (target/model.py ``Target.route``, target/cores.py ``route_core``) applied to an op's
spaces, ``pipe`` and ``tile.core`` annotation. It reads only the IR and the target, so the
verifier and every analysis and pass share this one definition (analysis/units.py builds op
costs and region units on it)."""

from __future__ import annotations

from dataclasses import replace

from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import Operation

from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.ir.tile import SlotOp, StageBorderOp, TileOp, ViewOp
from tilesched.ir.types import memory_space
from tilesched.target.cores import CORE_ATTRIBUTE, CoreRoutingError, qualified, route_core
from tilesched.target.model import Route, Target


def op_route(op: Operation, target: Target) -> Route | None:
    """The routing rule for a tile op, or None for ops that run on no unit. On a target with
    cores its unit is the instance on the op's core (``AIV0.V``, :func:`op_core`)."""
    if not isinstance(op, TileOp) or isinstance(op, ViewOp | SlotOp | StageBorderOp):
        return None
    if op.pipe is not None:
        rule = Route(ops=(op.name,), unit=op.pipe.data)
    else:
        reads = tuple(memory_space(v.type) for v in op.memref_operands[:-1])
        written = op.written()
        dst = memory_space(written.type) if written is not None and op.memref_operands else None
        rule = target.route(op.name, reads, dst)
    if rule is None or not target.cores or rule.unit in target.units:
        return rule
    return replace(rule, unit=qualified(op_core(op, target, rule.unit), rule.unit))


def op_core(op: Operation, target: Target, unit: str) -> str:
    """The core of ``target`` that runs tile op ``op`` on (unqualified) ``unit``: the routing
    rule of :func:`tilesched.target.cores.route_core` on the op's local spaces and its
    ``tile.core`` annotation. Raises a located :class:`TileschedError` when no core can."""
    local = [s for v in op.operands if isinstance(v.type, MemRefType)
             and (s := memory_space(v.type)) in target.spaces and not target.spaces[s].is_global]
    annotation = op.attributes.get(CORE_ATTRIBUTE)
    wanted = annotation.data if isinstance(annotation, StringAttr) else None
    try:
        return route_core(target.cores, local, unit, wanted)
    except CoreRoutingError as err:
        raise TileschedError(f"'{op.name}' {err}", location_of(op)) from None
