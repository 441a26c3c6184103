"""The ``sync`` dialect: the synchronization each hardware family needs (DESIGN.md §2).

- flags (Ascend): ``set_flag`` / ``wait_flag`` / ``pipe_barrier`` / ``barrier_all``;
- groups (CUDA cp.async): ``commit_group`` / ``wait_group``;
- barriers (AMD): ``barrier`` / ``cond_barrier``, plus ``setprio`` and ``sched_barrier``.
"""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)
from xdsl.utils.exceptions import VerifyException


class SyncOp(IRDLOperation):
    """Base of sync ops: properties may be written in the attribute dictionary."""

    irdl_options = (ParsePropInAttrDict(),)


# Issuer priorities: AMD's s_setprio takes 0..3 (the only family with priorities).
MAX_PRIORITY = 3


def priority_error(op: IRDLOperation, prop: str = "priority") -> None:
    """A priority outside 0..MAX_PRIORITY (a stage border's, or a ``sync.setprio``'s)."""
    attr = op.properties.get(prop)
    if isinstance(attr, IntegerAttr) and not 0 <= attr.value.data <= MAX_PRIORITY:
        raise VerifyException(f"'{op.name}' {prop} must be in 0..{MAX_PRIORITY} (the "
                              f"hardware's s_setprio range), got {attr.value.data}")


def _non_negative(op: IRDLOperation, prop: str) -> None:
    attr = op.properties.get(prop)
    if isinstance(attr, IntegerAttr) and attr.value.data < 0:
        raise VerifyException(f"'{op.name}' {prop} must be non-negative, got {attr.value.data}")


class _FlagOp(SyncOp):
    src = prop_def(StringAttr)
    dst = prop_def(StringAttr)
    event = prop_def(IntegerAttr[I64])
    assembly_format = "$src `->` $dst `,` $event attr-dict"

    def verify_(self) -> None:
        _non_negative(self, "event")
        if self.src.data == self.dst.data:
            raise VerifyException(
                f"'{self.name}' needs two different units, got {self.src.data} -> {self.dst.data} "
                "(use sync.pipe_barrier within one unit)"
            )

    @property
    def pair(self) -> tuple[str, str, int]:
        return self.src.data, self.dst.data, self.event.value.data


@irdl_op_definition
class SetFlagOp(_FlagOp):
    """Set event (src, dst, event) when all earlier ops on unit src are done."""

    name = "sync.set_flag"


@irdl_op_definition
class WaitFlagOp(_FlagOp):
    """Unit dst waits for event (src, dst, event), then clears it."""

    name = "sync.wait_flag"


@irdl_op_definition
class PipeBarrierOp(SyncOp):
    """Later ops on ``pipe`` wait for all earlier ops on ``pipe``."""

    name = "sync.pipe_barrier"
    pipe = prop_def(StringAttr)
    assembly_format = "$pipe attr-dict"


@irdl_op_definition
class BarrierAllOp(SyncOp):
    """The issuer waits until every unit is idle."""

    name = "sync.barrier_all"
    assembly_format = "attr-dict"


@irdl_op_definition
class CommitGroupOp(SyncOp):
    """Close the open group of async ops issued to ``queue``."""

    name = "sync.commit_group"
    queue = prop_def(IntegerAttr[I64])
    assembly_format = "$queue attr-dict"

    def verify_(self) -> None:
        _non_negative(self, "queue")


@irdl_op_definition
class WaitGroupOp(SyncOp):
    """Wait until at most ``pending`` committed groups of ``queue`` are incomplete.

    ``pending`` is an integer property or an ``index`` operand, exactly one of them.
    """

    name = "sync.wait_group"
    queue = prop_def(IntegerAttr[I64])
    pending = opt_prop_def(IntegerAttr[I64])
    pending_value = opt_operand_def(IndexType)
    assembly_format = "$queue (`,` $pending_value^)? attr-dict"

    def verify_(self) -> None:
        _non_negative(self, "queue")
        has_prop, has_operand = self.pending is not None, self.pending_value is not None
        if has_prop == has_operand:
            raise VerifyException(
                "'sync.wait_group' needs exactly one of a 'pending' property or an index operand"
            )
        _non_negative(self, "pending")


@irdl_op_definition
class BarrierOp(SyncOp):
    """Counter-based rendezvous of all issuer groups; ``local`` first completes LDS ops."""

    name = "sync.barrier"
    local = opt_prop_def(UnitAttr)
    assembly_format = "(`local` $local^)? attr-dict"


@irdl_op_definition
class CondBarrierOp(SyncOp):
    """A ``sync.barrier`` executed only by issuer group ``group`` ("high" or "low")."""

    name = "sync.cond_barrier"
    group = prop_def(StringAttr)
    local = opt_prop_def(UnitAttr)
    assembly_format = "$group (`local` $local^)? attr-dict"

    def verify_(self) -> None:
        if self.group.data not in ("high", "low"):
            raise VerifyException(
                f"'sync.cond_barrier' group must be \"high\" or \"low\", got \"{self.group.data}\""
            )


@irdl_op_definition
class SetPrioOp(SyncOp):
    """Issuer priority hint (warp-pipeline)."""

    name = "sync.setprio"
    priority = prop_def(IntegerAttr[I64])
    assembly_format = "$priority attr-dict"

    def verify_(self) -> None:
        priority_error(self)


@irdl_op_definition
class SchedBarrierOp(SyncOp):
    """Nothing may be moved across it."""

    name = "sync.sched_barrier"
    assembly_format = "attr-dict"


SYNC_OPS = [SetFlagOp, WaitFlagOp, PipeBarrierOp, BarrierAllOp, CommitGroupOp, WaitGroupOp,
            BarrierOp, CondBarrierOp, SetPrioOp, SchedBarrierOp]

Sync = Dialect("sync", SYNC_OPS, [])


# Builders: the sync ops passes insert, with their properties.

def make_set(src: str, dst: str, event: int) -> SetFlagOp:
    return SetFlagOp.create(properties=_flag_props(src, dst, event))


def make_wait(src: str, dst: str, event: int) -> WaitFlagOp:
    return WaitFlagOp.create(properties=_flag_props(src, dst, event))


def _flag_props(src: str, dst: str, event: int) -> dict:
    src_attr, dst_attr, event_attr = _flag_attributes(src, dst, event)
    return {"src": src_attr, "dst": dst_attr, "event": event_attr}


@functools.cache
def _flag_attributes(src: str, dst: str, event: int) -> tuple[StringAttr, StringAttr, IntegerAttr]:
    """Attributes are immutable values: build each (unit, unit, id) once, not per sync op."""
    return StringAttr(src), StringAttr(dst), IntegerAttr(event, i64)


def make_pipe_barrier(pipe: str) -> PipeBarrierOp:
    return PipeBarrierOp.create(properties={"pipe": StringAttr(pipe)})


def make_barrier_all() -> BarrierAllOp:
    return BarrierAllOp.create()


def make_commit(queue: int) -> CommitGroupOp:
    return CommitGroupOp.create(properties={"queue": IntegerAttr(queue, i64)})


def make_wait_group(queue: int, pending: int) -> WaitGroupOp:
    return WaitGroupOp.create(properties={"queue": IntegerAttr(queue, i64),
                                          "pending": IntegerAttr(pending, i64)})


def make_local_barrier() -> BarrierOp:
    return BarrierOp.create(properties={"local": UnitAttr()})


def make_barrier(local: bool = False) -> BarrierOp:
    return BarrierOp.create(properties={"local": UnitAttr()} if local else {})


def make_cond_barrier(group: str) -> CondBarrierOp:
    return CondBarrierOp.create(properties={"group": StringAttr(group)})


def make_setprio(priority: int) -> SetPrioOp:
    return SetPrioOp.create(properties={"priority": IntegerAttr(priority, i64)})


def make_sched_barrier() -> SchedBarrierOp:
    return SchedBarrierOp.create()
