"""One method per sync op of DESIGN.md §2 (for examples that need explicit synchronization)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import (
    IntegerAttr,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilesched.ir import sync as S
from tilesched.ir.dsl.located import _error, _non_negative
from tilesched.ir.dsl.tile_ops import _sched, _TileOps
from tilesched.ir.dsl.values import Index


class _SyncOps(_TileOps):
    """One method per sync op of DESIGN.md §2 (for examples that need explicit synchronization)."""

    def _sync(self, op_type: type[Operation], props: dict[str, Attribute],
              operands: Sequence[list[SSAValue]] = (), **opts: Any) -> Operation:
        attributes = self._annotations(**_sched(opts, op_type.name))
        return self._create(op_type, operands, props, attributes)

    def set_flag(self, src: str, dst: str, event: int | Index, **opts: Any) -> Operation:
        """``sync.set_flag``: set event ``(src, dst, event)`` once earlier ``src`` ops are done.

        ``event`` is a Python int (a property) or an index value such as ``(i + 1) % 2 + 4``
        (an operand: per-slot flags of a rolled loop)."""
        return self._flag(S.SetFlagOp, src, dst, event, **opts)

    def wait_flag(self, src: str, dst: str, event: int | Index, **opts: Any) -> Operation:
        """``sync.wait_flag``: unit ``dst`` waits for event ``(src, dst, event)`` and clears it
        (``event`` as for :meth:`set_flag`)."""
        return self._flag(S.WaitFlagOp, src, dst, event, **opts)

    def _flag(self, op_type: type[Operation], src: str, dst: str, event: int | Index,
              **opts: Any) -> Operation:
        props = {"src": _unit_name(src, "src"), "dst": _unit_name(dst, "dst")}
        if isinstance(event, Index):
            return self._sync(op_type, props, [[self._use(event)]], **opts)
        props["event"] = IntegerAttr(_non_negative(event, "event"), i64)
        return self._sync(op_type, props, [[]], **opts)

    def cross_set(self, src: str, dst: str, ident: int | Index, unit: str,
                  **opts: Any) -> Operation:
        """``sync.cross_set``: core ``src`` sets cross-core flag ``ident`` for core ``dst`` once
        its earlier ops on ``unit`` (e.g. ``"FIX"``) are done (split-core targets)."""
        props = {"src": _unit_name(src, "src"), "dst": _unit_name(dst, "dst"),
                 "unit": _unit_name(unit, "unit")}
        return self._cross(S.CrossSetOp, props, ident, **opts)

    def cross_wait(self, src: str, dst: str, ident: int | Index, **opts: Any) -> Operation:
        """``sync.cross_wait``: core ``dst``'s issuer waits for flag ``ident`` from core ``src``."""
        props = {"src": _unit_name(src, "src"), "dst": _unit_name(dst, "dst")}
        return self._cross(S.CrossWaitOp, props, ident, **opts)

    def _cross(self, op_type: type[Operation], props: dict, ident: int | Index,
               **opts: Any) -> Operation:
        if isinstance(ident, Index):
            return self._sync(op_type, props, [[self._use(ident)]], **opts)
        props["id"] = IntegerAttr(_non_negative(ident, "id"), i64)
        return self._sync(op_type, props, [[]], **opts)

    def pipe_barrier(self, pipe: str, **opts: Any) -> Operation:
        """``sync.pipe_barrier``: later ops on ``pipe`` wait for earlier ones."""
        return self._sync(S.PipeBarrierOp, {"pipe": _unit_name(pipe, "pipe")}, **opts)

    def barrier_all(self, **opts: Any) -> Operation:
        """``sync.barrier_all``: the issuer waits until every unit is idle."""
        return self._sync(S.BarrierAllOp, {}, **opts)

    def commit_group(self, queue: int = 0, **opts: Any) -> Operation:
        """``sync.commit_group``: close the open group of async ops on ``queue``."""
        props = {"queue": IntegerAttr(_non_negative(queue, "queue"), i64)}
        return self._sync(S.CommitGroupOp, props, **opts)

    def wait_group(self, queue: int = 0, pending: int | Index = 0, **opts: Any) -> Operation:
        """``sync.wait_group``: wait until at most ``pending`` groups of ``queue`` are incomplete.

        ``pending`` is a Python int (a property) or an index value (an operand).
        """
        props = {"queue": IntegerAttr(_non_negative(queue, "queue"), i64)}
        if isinstance(pending, Index):
            return self._sync(S.WaitGroupOp, props, [[self._use(pending)]], **opts)
        props["pending"] = IntegerAttr(_non_negative(pending, "pending"), i64)
        return self._sync(S.WaitGroupOp, props, [[]], **opts)

    def barrier(self, local: bool = False, **opts: Any) -> Operation:
        """``sync.barrier``: rendezvous of all issuer groups (``local`` completes LDS ops first)."""
        return self._sync(S.BarrierOp, {"local": UnitAttr()} if local else {}, **opts)

    def cond_barrier(self, group: str, local: bool = False, **opts: Any) -> Operation:
        """``sync.cond_barrier``: a barrier executed only by issuer group ``group``."""
        if group not in ("high", "low"):
            raise _error(f"cond_barrier group must be \"high\" or \"low\", got {group!r}")
        props: dict[str, Attribute] = {"group": StringAttr(group)}
        if local:
            props["local"] = UnitAttr()
        return self._sync(S.CondBarrierOp, props, **opts)

    def setprio(self, priority: int, **opts: Any) -> Operation:
        """``sync.setprio``: issuer priority hint."""
        props = {"priority": IntegerAttr(_non_negative(priority, "priority"), i64)}
        return self._sync(S.SetPrioOp, props, **opts)

    def sched_barrier(self, **opts: Any) -> Operation:
        """``sync.sched_barrier``: nothing may be moved across it."""
        return self._sync(S.SchedBarrierOp, {}, **opts)


def _unit_name(unit: Any, role: str) -> StringAttr:
    if not isinstance(unit, str) or not unit:
        raise _error(f"{role} must be a unit name such as \"MTE2\", got {unit!r}")
    return StringAttr(unit)
