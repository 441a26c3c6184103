"""Verification of a module: xDSL's structural verifiers, then the target's rules.

Structural rules (operand counts, memref types, shapes, property types, event ids
>= 0) live on the ops themselves (``tile.py``, ``sync.py``). This module adds
- the types of the scheduling annotations (``tile.stage = "zero"`` is an error, not an op
  silently left unscheduled) and windows known at compile time: a ``tile.view`` or
  ``tile.slot`` whose constant offsets reach outside its source;
- what depends on the machine model: memory spaces exist and fit, every tile op has a unit
  that can run it, and sync ops belong to the target's sync family and name its units.
All problems are collected and reported with ``file:line:col``.

Speed: a file of 50k ops verifies in about a second. The verifiers of ``tile`` and ``sync``
ops read only the op's class, operand and result types, properties and attributes (no
neighbours, no parents), so an op equal in all of those to one already verified is not
verified again (:func:`_verified_before`); kernels repeat a few such signatures thousands of
times. Keep it so: a verifier of these dialects that looks further must not be memoized.
"""

from __future__ import annotations

import math
from collections import defaultdict

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import VerificationContext
from xdsl.utils.exceptions import VerifyException

from tilesched.diagnostics import TileschedError, TileschedErrors
from tilesched.gc_pause import paused_gc
from tilesched.ir import sync as S
from tilesched.ir.affine import index_values
from tilesched.ir.annotations import annotation_errors, constant_window_errors
from tilesched.ir.routing import op_route
from tilesched.ir.text import location_of
from tilesched.ir.tile import SlotOp, StageBorderOp, TileOp, ViewOp
from tilesched.ir.types import element_bytes, memory_space, memref_type_error
from tilesched.ir.valid import valid_region_error
from tilesched.target.cores import CORE_ATTRIBUTE, qualified
from tilesched.target.model import Target

_FAMILY_OPS = {
    "flags": (S.SetFlagOp, S.WaitFlagOp, S.PipeBarrierOp, S.BarrierAllOp),
    "groups": (S.CommitGroupOp, S.WaitGroupOp),
    "barriers": (S.BarrierOp, S.CondBarrierOp, S.SetPrioOp),
}


def verify_module(module: ModuleOp, target: Target | None = None) -> None:
    """Raise :class:`TileschedErrors` listing every problem found, in program order."""
    with paused_gc():
        ops = list(module.walk())
        errors = structural_errors(ops)
        if not errors and target is not None:
            errors = target_errors(ops, target)
    if errors:
        raise TileschedErrors(errors)


def structural_errors(ops: list[Operation]) -> list[TileschedError]:
    """Each op's own verifier (types, operand counts, shapes, properties), the annotations'
    types and constant windows, for ``ops`` in program order."""
    errors = []
    verified = _Verified()
    for op in ops:
        if message := _op_error(op, verified):
            where = _redefinition(op) if message.startswith("Redefinition of symbol") else None
            errors.append(TileschedError(message, where or location_of(op)))
            continue
        if op.attributes:
            errors.extend(TileschedError(message, location_of(op)) for message in annotation_errors(op))
        if type(op) in (ViewOp, SlotOp):
            errors.extend(TileschedError(message, location_of(op))
                          for message in constant_window_errors(op))
        elif isinstance(op, TileOp) and (message := valid_region_error(op)):
            errors.append(TileschedError(message, location_of(op)))
        if op.results or op.regions:
            errors.extend(TileschedError(message, location_of(op))
                          for message in _memref_type_errors(op, verified))
    return errors


def _memref_type_errors(op: Operation, verified: _Verified) -> list[str]:
    """Memrefs ``op`` defines (results, block arguments of its regions) whose element type
    tilesched cannot size or store (``f8E4M3FN``, ``complex``, ``index``, ``vector``...): checked
    here, before the target's capacity check and every pass and simulator that sizes buffers
    (issue 28). (A dynamic shape is the simulator's to refuse: passes accept it.)"""
    values = list(op.results)
    for region in op.regions:
        for block in region.blocks:
            values.extend(block.args)
    errors = []
    for value in values:
        kind = value.type
        if not isinstance(kind, MemRefType) or id(kind) in verified.types:
            continue
        if (message := memref_type_error(kind)) is None:
            verified.types[id(kind)] = kind  # keep it alive: ids stay unique while cached
            continue
        what = f"%{value.name_hint}" if value.name_hint else "a buffer"
        errors.append(f"{what}: {message}")
    return errors


def _redefinition(op: Operation):
    """Where a symbol of ``op``'s body is defined a second time (xDSL's symbol-table error names
    the symbol only, on a module that may have no location)."""
    seen = set()
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                name = child.properties.get("sym_name") or child.attributes.get("sym_name")
                if isinstance(name, StringAttr):
                    if name.data in seen:
                        return location_of(child)
                    seen.add(name.data)
    return None


class _Verified:
    """Signatures of ops already verified (see :func:`_signature`): by the identity of their
    types and attributes first (one tuple of ints, cheap to hash; kernels share these objects),
    then by the attributes' values (ops a pass built with equal but distinct attributes).
    Identity is sound because every object stays alive (held by its op) while one
    :func:`structural_errors` call runs."""

    def __init__(self):
        self._by_identity: set[tuple] = set()
        self._by_value: set[tuple] = set()
        self.types: dict[int, MemRefType] = {}  # memref types already checked, by identity

    def __contains__(self, op: Operation) -> bool:
        identity = _signature(op)
        if identity is None:
            return False
        if identity in self._by_identity:
            return True
        value = _value_signature(op)
        if value is not None and value in self._by_value:
            self._by_identity.add(identity)
            return True
        return False

    def add(self, op: Operation) -> None:
        identity = _signature(op)
        if identity is not None:
            self._by_identity.add(identity)
            if (value := _value_signature(op)) is not None:
                self._by_value.add(value)


def _op_error(op: Operation, verified: _Verified) -> str | None:
    """Why ``op``'s own verifier rejects it (a clearer message for a property of the wrong
    kind), or None."""
    if op in verified:
        return None
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as err:
        return property_error(op) or _clean(str(err))
    except Exception as err:  # xDSL verifiers may raise other errors on malformed IR
        return property_error(op) or f"'{op.name}' is malformed: {_clean(str(err))}"
    verified.add(op)
    return None


_CONTEXT_FREE = (TileOp, ViewOp, SlotOp, StageBorderOp, S.SyncOp)
_KIND_OF_CLASS: dict[type, str | None] = {}


def _kind(op: Operation) -> str | None:
    """"compute" (a :class:`TileOp`), "tile" (views, slots, stage borders) or "sync" for ops of
    those dialects, else None (per class: ``isinstance`` on these abstract classes is slow, and
    every op asks)."""
    cls = type(op)
    if cls not in _KIND_OF_CLASS:
        _KIND_OF_CLASS[cls] = ("sync" if issubclass(cls, S.SyncOp) else "compute"
                               if issubclass(cls, TileOp) else "tile"
                               if issubclass(cls, _CONTEXT_FREE) else None)
    return _KIND_OF_CLASS[cls]


def _signature(op: Operation) -> tuple | None:
    """What the verifier of a ``tile`` or ``sync`` op reads, by identity (None: verify every
    time): its class, the types of its operands and results, its properties and attributes.

    Types are keyed by identity: the parser shares one object per spelling, and hashing
    nested types by value costs more than verifying."""
    if _kind(op) is None or op.regions or op._successors:  # noqa: SLF001
        return None
    return (type(op), *[id(v.type) for v in op._operands], None,  # noqa: SLF001
            *[id(r.type) for r in op.results], None,
            *[(k, id(a)) for k, a in op.properties.items()], None,
            *[(k, id(a)) for k, a in op.attributes.items()])


def _value_signature(op: Operation) -> tuple | None:
    """:func:`_signature` with attributes by value (None for an unhashable attribute)."""
    key = (type(op), tuple(id(v.type) for v in op.operands), tuple(id(r.type) for r in op.results),
           tuple(op.properties.items()), tuple(op.attributes.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key


_PROPERTY_SAMPLES = [
    ("an i64 integer", IntegerAttr(0, 64)),
    ("a string", StringAttr("x")),
    ("a unit attribute (a flag written without a value)", UnitAttr()),
    ("a float", FloatAttr(0.0, 32)),
    ("an array<i64: ...>", DenseArrayBase.from_list(i64, [1])),
]


def property_error(op: Operation) -> str | None:
    """A clear message for a property of the wrong type (xDSL's names no property)."""
    if not isinstance(op, IRDLOperation):
        return None
    for name, definition in op.get_irdl_definition().properties.items():
        attr = op.properties.get(name)
        if attr is None or _accepts(definition.constr, attr):
            continue
        expected = [text for text, sample in _PROPERTY_SAMPLES if _accepts(definition.constr, sample)]
        want = " or ".join(expected) or "another attribute kind"
        return f"'{op.name}' property '{name}' must be {want}, got {attr}"
    return None


def _accepts(constraint, attr) -> bool:
    try:
        constraint.verify(attr, VerificationContext())
    except VerifyException:
        return False
    return True


def target_errors(ops: list[Operation], target: Target) -> list[TileschedError]:
    """Rules that depend on the machine model, for ``ops`` in program order."""
    errors: list[TileschedError] = []
    routed: dict[tuple, list[str]] = {}
    synced: dict[tuple, list[str]] = {}
    event_sets: dict = {}  # event-id operand -> the values it can take (or None)
    for op in ops:
        if op.results or op.regions:
            errors.extend(_space_errors(op, target))
        kind = _kind(op)
        if kind == "compute":
            key = (op.name, op.pipe, op.attributes.get(CORE_ATTRIBUTE),
                   *[id(v.type) for v in op._operands])  # noqa: SLF001 (see _signature)
            if key not in routed:
                routed[key] = _routing_errors(op, target)
            messages = routed[key]
        elif kind == "sync":
            key = (type(op), *[(k, id(a)) for k, a in op.properties.items()])  # see _signature
            if key not in synced:
                synced[key] = _sync_errors(op, target)
            messages = synced[key]
            if op._operands and isinstance(op, S.SetFlagOp | S.WaitFlagOp) \
                    and target.sync == "flags":  # noqa: SLF001
                messages = messages + _event_operand_errors(op, target, event_sets)
            elif op._operands and isinstance(op, S.CrossSetOp | S.CrossWaitOp) \
                    and target.cores and not messages:  # noqa: SLF001
                messages = _event_operand_errors(op, target, event_sets)
        else:
            continue
        errors.extend(TileschedError(message, location_of(op)) for message in messages)
    errors.extend(_capacity_errors(ops, target))
    if target.cores and not errors:
        errors.extend(_buffer_core_errors(ops, target))
    return errors


def _buffer_core_errors(ops: list[Operation], target: Target) -> list[TileschedError]:
    """On a split-core target every on-chip buffer lives in one core's memory: the ops that touch
    it (through views and slots) must all run on that core. UB belongs to each vector core, so an
    op on a UB buffer that an op annotated ``tile.core = "AIV1"`` uses must be annotated too."""
    first: dict = {}  # root buffer -> (core, op)
    errors = []
    for op in ops:
        if _kind(op) != "compute" or isinstance(op, ViewOp | SlotOp | StageBorderOp):
            continue
        rule = op_route(op, target)
        core = target.core_of(rule.unit) if rule is not None else None
        if core is None:
            continue
        for value in op.memref_operands:
            root = value
            while isinstance(root.owner, ViewOp | SlotOp):
                root = root.owner.source
            space = memory_space(root.type)
            if space not in target.spaces or target.spaces[space].is_global:
                continue
            seen = first.setdefault(root, (core, op))
            if seen[0] != core:
                name = f"%{root.name_hint}" if root.name_hint else "a buffer"
                errors.append(TileschedError(
                    f"'{op.name}' runs on core {core}, but {name} (\"{space}\") is used on core "
                    f"{seen[0]} by '{seen[1].name}' at {location_of(seen[1])}; a buffer lives in "
                    f"one core's memory: annotate the op {CORE_ATTRIBUTE} = \"{seen[0]}\"",
                    location_of(op)))
    return errors


def _space_errors(op: Operation, target: Target) -> list[TileschedError]:
    errors = []
    values = list(op.results)
    for region in op.regions:
        for block in region.blocks:
            values.extend(block.args)
    for value in values:
        if not isinstance(value.type, MemRefType):
            continue
        space = memory_space(value.type)
        what = f" of %{value.name_hint}" if value.name_hint else ""
        if space is None:
            errors.append(TileschedError(
                f"memref {value.type}{what} has no memory space; target '{target.name}' has spaces "
                + ", ".join(f'"{s}"' for s in target.spaces), location_of(op)))
        elif space not in target.spaces:
            errors.append(TileschedError(
                f"unknown memory space \"{space}\"{what} for target '{target.name}'; valid spaces: "
                + ", ".join(f'"{s}"' for s in target.spaces), location_of(op)))
    return errors


def _routing_errors(op: TileOp, target: Target) -> list[str]:
    """Why no unit of ``target`` runs ``op`` (it depends only on the op's name, pipe and
    operand types, so callers may reuse the answer)."""
    if isinstance(op, ViewOp | SlotOp | StageBorderOp):
        return []
    if op.pipe is not None:
        if op.pipe.data not in target.units and not (
                target.cores and any(op.pipe.data in c.units for c in target.cores.values())):
            return [f"'{op.name}' pipe \"{op.pipe.data}\" is not a unit of target '{target.name}'; "
                    f"units: {', '.join(target.units)}"]
        return _core_errors(op, target)
    spaces = [memory_space(v.type) for v in op.memref_operands]
    if any(s not in target.spaces for s in spaces):
        return []  # already reported as an unknown space
    reads = tuple(memory_space(v.type) for v in op.memref_operands[:-1])
    dst = spaces[-1] if spaces else None
    if target.route(op.name, reads, dst) is None:
        shown = ", ".join(f'"{s}"' for s in reads) or "nothing"
        return [f"no unit of target '{target.name}' runs '{op.name}' reading {shown} and "
                f"writing \"{dst}\""]
    return _core_errors(op, target)


def _core_errors(op: TileOp, target: Target) -> list[str]:
    """Why no core of a split-core ``target`` runs ``op`` (target/cores.py)."""
    if not target.cores:
        return []  # a tile.core annotation means nothing here: the kernel stays portable
    try:
        op_route(op, target)
    except TileschedError as err:
        return [err.message]
    return []


def _sync_errors(op: S.SyncOp, target: Target) -> list[str]:
    """Why ``op`` does not fit the target's synchronization (it depends only on the op's class
    and properties, so callers may reuse the answer)."""
    for family, ops in _FAMILY_OPS.items():
        if isinstance(op, ops) and family != target.sync \
                and not (family == "groups" and target.sync == "barriers" and _async_queues(target)):
            return [f"'{op.name}' is {family}-family synchronization, but target '{target.name}' "
                    f"synchronizes with {target.sync}"]
    errors = []
    if isinstance(op, S.CrossSetOp | S.CrossWaitOp):
        return _cross_errors(op, target)
    if isinstance(op, S.SetFlagOp | S.WaitFlagOp):
        for role, unit in (("src", op.src.data), ("dst", op.dst.data)):
            if unit not in target.queued_units:
                errors.append(f"'{op.name}' {role} \"{unit}\" is not a queued unit of target "
                              f"'{target.name}'; units: {', '.join(target.queued_units)}")
        if not errors and target.core_of(op.src.data) != target.core_of(op.dst.data):
            errors.append(f"'{op.name}' joins units of two cores ({op.src.data} -> "
                          f"{op.dst.data}); cores synchronize with sync.cross_set / cross_wait")
    elif isinstance(op, S.PipeBarrierOp) and op.pipe.data not in target.queued_units:
        errors.append(f"'sync.pipe_barrier' pipe \"{op.pipe.data}\" is not a queued unit of target "
                      f"'{target.name}'; units: {', '.join(target.queued_units)}")
    elif isinstance(op, S.CommitGroupOp | S.WaitGroupOp):
        queues = _async_queues(target)
        if op.queue.value.data not in queues:
            errors.append(f"'{op.name}' queue {op.queue.value.data} does not exist on target "
                          f"'{target.name}'; async queues: {queues}")
    return errors


def _cross_errors(op: S.CrossSetOp | S.CrossWaitOp, target: Target) -> list[str]:
    """Why a cross-core flag op does not fit ``target``: it has no cores, a core or the set's
    unit is unknown, or a constant id is at or above the target's cross-core id limit."""
    if not target.cores:
        return [f"'{op.name}' is cross-core synchronization, but target '{target.name}' has no "
                "cores (use a split-core target such as ascend-a2-mix)"]
    errors = [f"'{op.name}' {role} \"{core}\" is not a core of target '{target.name}'; cores: "
              f"{', '.join(target.cores)}"
              for role, core in zip(("src", "dst"), op.cores, strict=True) if core not in target.cores]
    if errors:
        return errors
    if isinstance(op, S.CrossSetOp):
        src = target.cores[op.src.data]
        if op.unit.data not in src.units or target.units[
                qualified(src.name, op.unit.data)].kind == "inline":
            queued = [u for u in src.units if target.units[qualified(src.name, u)].kind != "inline"]
            errors.append(f"'sync.cross_set' unit \"{op.unit.data}\" is not a queued unit of core "
                          f"{src.name}; units: {', '.join(queued)}")
    limit = target.cross_event_limit
    if op.id is not None and limit is not None and op.id.value.data >= limit:
        errors.append(f"'{op.name}' id {op.id.value.data} is out of range: target "
                      f"'{target.name}' has {limit} cross-core flag ids (0..{limit - 1})")
    return errors


def _async_queues(target: Target) -> list[int]:
    """The target's async (commit/wait group) queues: on group targets every cp.async copy, on
    barrier targets (AMD) the copies marked for the async unit (``pipe``), whose groups'
    ``commit_group`` / ``wait_group`` are then accepted as well."""
    return sorted({r.async_queue for r in target.routes if r.async_queue is not None})


def _event_operand_errors(op: S.SetFlagOp | S.WaitFlagOp | S.CrossSetOp | S.CrossWaitOp,
                          target: Target, known: dict) -> list[str]:
    """Why an event id given as an ``index`` operand may leave ``0 .. limit - 1`` (every value
    it can take is checked: :func:`~tilesched.ir.affine.index_values`)."""
    cross = isinstance(op, S.CrossSetOp | S.CrossWaitOp)
    value = op.id_value if cross else op.event_value
    if value not in known:
        known[value] = index_values(value)
    values = known[value]
    name = f"%{value.name_hint}" if value.name_hint else "operand"
    if values is None:
        return [f"'{op.name}' event id {name}: the values it can take cannot be bounded (compute "
                "it from constants and induction variables of loops with constant bounds, e.g. "
                "base + (i + c) mod N)"]
    if not values:
        return []
    low, high = min(values), max(values)
    limit = target.cross_event_limit if cross else target.event_limit
    shown = f"{low}" if low == high else f"{low}..{high}"
    if low < 0:
        return [f"'{op.name}' event id {name} can be {low} (it takes {shown}); event ids are "
                "non-negative"]
    if limit is not None and high >= limit:
        per = "cross-core flag ids" if cross else "event ids per unit pair"
        return [f"'{op.name}' event id {name} can be {high} (it takes {shown}), but target "
                f"'{target.name}' has {limit} {per}"]
    return []


def _capacity_errors(ops: list[Operation], target: Target) -> list[TileschedError]:
    """Allocations that overflow a memory space, per kernel: the buffers of one function are
    live together, those of two functions of a file are not (each is a kernel of its own).
    The key of :func:`_capacity_scope` says which allocations share a memory; a split-core
    target would add the core an allocation's space belongs to (issue 28 §5)."""
    used: dict[tuple, int] = defaultdict(int)
    first: dict[tuple, Operation] = {}
    for op in ops:
        if isinstance(op, memref.AllocOp) and isinstance(op.memref.type, MemRefType):
            space = memory_space(op.memref.type)
            if space in target.spaces and all(d >= 0 for d in op.memref.type.get_shape()):
                key = (_capacity_scope(op), space)  # a dynamic shape has no size to add
                used[key] += math.prod(op.memref.type.get_shape()) * element_bytes(op.memref.type)
                first.setdefault(key, op)
    errors = []
    for (scope, space), size in used.items():
        capacity = target.spaces[space].capacity
        if capacity is not None and size > capacity:
            where = f" of function @{scope}" if scope else ""
            errors.append(TileschedError(
                f"allocations in space \"{space}\"{where} need {size} bytes, but target "
                f"'{target.name}' has {capacity} bytes", location_of(first[(scope, space)])))
    return errors


def _capacity_scope(op: Operation) -> str | None:
    """The function whose buffers ``op``'s allocation shares a memory with (its name; None
    outside any function)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent.sym_name.data if parent is not None else None


def _clean(message: str) -> str:
    return " ".join(message.split())
