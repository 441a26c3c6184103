"""The ``sync`` dialect: the synchronization each hardware family needs (DESIGN.md §2).

- flags (Ascend): ``set_flag`` / ``wait_flag`` / ``pipe_barrier`` / ``barrier_all``;
- groups (CUDA cp.async): ``commit_group`` / ``wait_group``;
- barriers (AMD): ``barrier`` / ``cond_barrier``, plus ``setprio`` and ``sched_barrier``;
- cross-core flags (split-core Ascend targets): ``cross_set`` / ``cross_wait``.
"""

from __future__ import annotations

import functools

from xdsl.dialects import arith
from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
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
    """``set_flag`` / ``wait_flag``: an event flag ``(src, dst, event)``.

    The event id is an integer property (``sync.set_flag "MTE2" -> "MTE1", 7``) or an ``index``
    operand computed in the program (``sync.set_flag "MTE2" -> "MTE1", %ev``: per-slot flags of
    a rolled loop, ``base + (i + c) mod N``), exactly one of them. Generic form:
    ``"sync.set_flag"() {src = "MTE2", dst = "MTE1", event = 7 : i64} : () -> ()`` or
    ``"sync.set_flag"(%ev) {src = "MTE2", dst = "MTE1"} : (index) -> ()``.
    """

    src = prop_def(StringAttr)
    dst = prop_def(StringAttr)
    event = opt_prop_def(IntegerAttr[I64])
    event_value = opt_operand_def(IndexType)

    def verify_(self) -> None:
        if (self.event is None) == (self.event_value is None):
            raise VerifyException(
                f"'{self.name}' needs exactly one of an 'event' property or an index operand"
            )
        _non_negative(self, "event")
        if self.src.data == self.dst.data:
            raise VerifyException(
                f"'{self.name}' needs two different units, got {self.src.data} -> {self.dst.data} "
                "(use sync.pipe_barrier within one unit)"
            )

    @property
    def pair(self) -> tuple[str, str, int]:
        """``(src, dst, event)`` of a flag with a constant event id (see :func:`event_id`)."""
        return self.src.data, self.dst.data, self.event.value.data

    @classmethod
    def parse(cls, parser: Parser) -> _FlagOp:
        """``"SRC" -> "DST", EVENT {attrs}?`` where EVENT is an integer or an index value."""
        return _parse_pair(cls, parser, "event")

    def print(self, printer: Printer) -> None:
        _print_pair(self, printer, "event")


def _parse_pair(cls, parser: Parser, id_name: str, keyword: str | None = None):
    """The custom form of a flag between two units or cores: ``"SRC" -> "DST", ID`` with ID an
    integer (property ``id_name``) or an index value (the operand), then, for ops with a
    ``keyword``, ``KEYWORD "UNIT"`` (property ``unit``), then the attribute dictionary."""
    properties: dict[str, Attribute] = {"src": parser.parse_attribute()}
    parser.parse_punctuation("->")
    properties["dst"] = parser.parse_attribute()
    parser.parse_punctuation(",")
    operand = parser.parse_optional_unresolved_operand()
    operands = []
    if operand is not None:
        operands = [parser.resolve_operand(operand, IndexType())]
    else:
        properties[id_name] = IntegerAttr(parser.parse_integer(allow_boolean=False), i64)
    if keyword is not None and parser.parse_optional_keyword(keyword) is not None:
        properties["unit"] = parser.parse_attribute()
    attributes = parser.parse_optional_attr_dict()
    for name in ("src", "dst", id_name) + (("unit",) if keyword else ()):
        if name in attributes:
            parser.raise_error(f"attributes {name} are defined in other parts of the assembly "
                               "format, and thus should not be defined in the attribute "
                               "dictionary.")
    return cls.create(operands=operands, properties=properties, attributes=attributes)


def _print_pair(op: IRDLOperation, printer: Printer, id_name: str,
                keyword: str | None = None) -> None:
    """Print what :func:`_parse_pair` reads (an op the verifier rejects: its parts, for the
    error message that follows)."""
    src, dst, ident, unit = (op.properties.get(n) for n in ("src", "dst", id_name, "unit"))
    operands = list(op.operands)
    if not (isinstance(src, StringAttr) and isinstance(dst, StringAttr)
            and (isinstance(ident, IntegerAttr) + len(operands) == 1)
            and (unit is None or (keyword is not None and isinstance(unit, StringAttr)))):
        if operands:
            printer.print_string(" ")
            printer.print_list(operands, printer.print_operand)
        printer.print_op_attributes({**op.properties, **op.attributes})
        return
    printer.print_string(" ")
    printer.print_attribute(src)
    printer.print_string(" -> ")
    printer.print_attribute(dst)
    printer.print_string(", ")
    if operands:
        printer.print_operand(operands[0])
    else:
        printer.print_string(str(ident.value.data))
    if unit is not None:
        printer.print_string(f" {keyword} ")
        printer.print_attribute(unit)
    printer.print_op_attributes(op.attributes)


def event_id(op: _FlagOp) -> int | SSAValue:
    """The event id of a flag op: its integer, or the ``index`` value that computes it."""
    return op.event.value.data if op.event is not None else op.event_value


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


class _CrossFlagOp(SyncOp):
    """``cross_set`` / ``cross_wait``: a flag ``(src core, dst core, id)`` between the cores of
    a split-core target (``ascend-a2-mix``: AIC, AIV0, AIV1), FFTS-style
    (``ffts_cross_core_sync`` / ``wait_flag_dev``). The id is an integer property or an
    ``index`` operand (a rotating id, as for ``set_flag``), exactly one of them, below the
    target's ``cross_event_limit``. ``cross_set`` also names the unit of the src core whose
    earlier ops must be done (``unit``, e.g. ``"FIX"``).

    Custom form: ``sync.cross_set "AIC" -> "AIV0", 3 after "FIX"`` and
    ``sync.cross_wait "AIC" -> "AIV0", 3``; generic form:
    ``"sync.cross_set"() {src = "AIC", dst = "AIV0", id = 3 : i64, unit = "FIX"} : () -> ()``.
    """

    src = prop_def(StringAttr)
    dst = prop_def(StringAttr)
    id = opt_prop_def(IntegerAttr[I64])
    id_value = opt_operand_def(IndexType)

    def verify_(self) -> None:
        if (self.id is None) == (self.id_value is None):
            raise VerifyException(f"'{self.name}' needs exactly one of an 'id' property or an "
                                  "index operand")
        _non_negative(self, "id")
        if self.src.data == self.dst.data:
            raise VerifyException(f"'{self.name}' needs two different cores, got "
                                  f"{self.src.data} -> {self.dst.data}")

    @property
    def cores(self) -> tuple[str, str]:
        return self.src.data, self.dst.data

    @classmethod
    def parse(cls, parser: Parser) -> _CrossFlagOp:
        """``"SRC" -> "DST", ID (after "UNIT")? {attrs}?`` where ID is an integer or an index
        value."""
        return _parse_pair(cls, parser, "id", "after")

    def print(self, printer: Printer) -> None:
        _print_pair(self, printer, "id", "after")


def cross_id(op: _CrossFlagOp) -> int | SSAValue:
    """The flag id of a cross-core op: its integer, or the ``index`` value that computes it."""
    return op.id.value.data if op.id is not None else op.id_value


@irdl_op_definition
class CrossSetOp(_CrossFlagOp):
    """Set cross-core flag (src, dst, id) when all earlier ops on unit ``unit`` of core src are
    done (``ffts_cross_core_sync``)."""

    name = "sync.cross_set"
    unit = prop_def(StringAttr)


@irdl_op_definition
class CrossWaitOp(_CrossFlagOp):
    """Core dst's issuer waits for cross-core flag (src, dst, id), then clears it
    (``wait_flag_dev``)."""

    name = "sync.cross_wait"

    def verify_(self) -> None:
        super().verify_()
        if "unit" in self.properties:
            raise VerifyException("'sync.cross_wait' takes no unit: the dst core's issuer waits")


SYNC_OPS = [SetFlagOp, WaitFlagOp, PipeBarrierOp, BarrierAllOp, CommitGroupOp, WaitGroupOp,
            BarrierOp, CondBarrierOp, SetPrioOp, SchedBarrierOp, CrossSetOp, CrossWaitOp]

Sync = Dialect("sync", SYNC_OPS, [])


# Builders: the sync ops passes insert, with their properties.

def make_set(src: str, dst: str, event: int | SSAValue) -> SetFlagOp:
    """``sync.set_flag``; ``event`` an integer or an ``index`` value (a per-slot id)."""
    return _make_flag(SetFlagOp, src, dst, event)


def make_wait(src: str, dst: str, event: int | SSAValue) -> WaitFlagOp:
    """``sync.wait_flag``; ``event`` an integer or an ``index`` value (a per-slot id)."""
    return _make_flag(WaitFlagOp, src, dst, event)


def slot_event(index: SSAValue, slots: int, offset: int = 0,
               base: int = 0) -> tuple[list[Operation], SSAValue]:
    """The ``arith`` ops computing the per-slot event id ``base + (index + offset) mod slots``
    (``index`` typically a loop's induction variable) and the value they compute: insert the
    ops before the ``make_set`` / ``make_wait`` that take the value. The verifier bounds such a
    value to ``base .. base + slots - 1`` (``ir.affine.index_values``)."""
    ops: list[Operation] = []

    def constant(value: int) -> SSAValue:
        ops.append(arith.ConstantOp(IntegerAttr(value, IndexType())))
        return ops[-1].results[0]

    value = index
    if offset:
        ops.append(arith.AddiOp(value, constant(offset)))
        value = ops[-1].results[0]
    ops.append(arith.RemUIOp(value, constant(slots)))
    value = ops[-1].results[0]
    if base:
        ops.append(arith.AddiOp(value, constant(base)))
        value = ops[-1].results[0]
    return ops, value


def _make_flag(cls, src: str, dst: str, event: int | SSAValue):
    if isinstance(event, SSAValue):
        src_attr, dst_attr = _unit_attributes(src, dst)
        return cls.create(operands=[event], properties={"src": src_attr, "dst": dst_attr})
    return cls.create(properties=_flag_props(src, dst, event))


def _flag_props(src: str, dst: str, event: int) -> dict:
    src_attr, dst_attr, event_attr = _flag_attributes(src, dst, event)
    return {"src": src_attr, "dst": dst_attr, "event": event_attr}


@functools.cache
def _unit_attributes(src: str, dst: str) -> tuple[StringAttr, StringAttr]:
    return StringAttr(src), StringAttr(dst)


@functools.cache
def _flag_attributes(src: str, dst: str, event: int) -> tuple[StringAttr, StringAttr, IntegerAttr]:
    """Attributes are immutable values: build each (unit, unit, id) once, not per sync op."""
    return StringAttr(src), StringAttr(dst), IntegerAttr(event, i64)


def make_cross_set(src: str, dst: str, unit: str, ident: int | SSAValue) -> CrossSetOp:
    """``sync.cross_set``: core ``src`` sets flag ``ident`` for core ``dst`` after its earlier
    ops on (unqualified) ``unit``."""
    props = {"src": StringAttr(src), "dst": StringAttr(dst), "unit": StringAttr(unit)}
    if isinstance(ident, SSAValue):
        return CrossSetOp.create(operands=[ident], properties=props)
    return CrossSetOp.create(properties={**props, "id": IntegerAttr(ident, i64)})


def make_cross_wait(src: str, dst: str, ident: int | SSAValue) -> CrossWaitOp:
    """``sync.cross_wait``: core ``dst`` waits for flag ``ident`` set by core ``src``."""
    props = {"src": StringAttr(src), "dst": StringAttr(dst)}
    if isinstance(ident, SSAValue):
        return CrossWaitOp.create(operands=[ident], properties=props)
    return CrossWaitOp.create(properties={**props, "id": IntegerAttr(ident, i64)})


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
