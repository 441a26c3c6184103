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

from xdsl.dialects import memref
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
from tilesched.ir.annotations import annotation_errors, constant_window_errors
from tilesched.ir.text import location_of
from tilesched.ir.tile import SlotOp, StageBorderOp, TileOp, ViewOp
from tilesched.ir.types import element_bytes, memory_space
from tilesched.target.model import Target

_FAMILY_OPS = {
    "flags": (S.SetFlagOp, S.WaitFlagOp, S.PipeBarrierOp, S.BarrierAllOp),
    "groups": (S.CommitGroupOp, S.WaitGroupOp),
    "barriers": (S.BarrierOp, S.CondBarrierOp, S.SetPrioOp),
}


def verify_module(module: ModuleOp, target: Target | None = None) -> None:
    """Raise :class:`TileschedErrors` listing every problem found, in program order."""
    with paused_gc():
        errors = structural_errors(module)
        if not errors and target is not None:
            errors = target_errors(module, target)
    if errors:
        raise TileschedErrors(errors)


def structural_errors(module: ModuleOp) -> list[TileschedError]:
    """Each op's own verifier (types, operand counts, shapes, properties), the annotations'
    types and constant windows."""
    errors = []
    verified: set = set()
    for op in module.walk():
        if message := _op_error(op, verified):
            where = _redefinition(op) if message.startswith("Redefinition of symbol") else None
            errors.append(TileschedError(message, where or location_of(op)))
            continue
        errors.extend(TileschedError(message, location_of(op))
                      for message in annotation_errors(op) + constant_window_errors(op))
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


def _op_error(op: Operation, verified: set) -> str | None:
    """Why ``op``'s own verifier rejects it (a clearer message for a property of the wrong
    kind), or None."""
    key = _signature(op)
    if key is not None and key in verified:
        return None
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as err:
        return property_error(op) or _clean(str(err))
    except Exception as err:  # xDSL verifiers may raise other errors on malformed IR
        return property_error(op) or f"'{op.name}' is malformed: {_clean(str(err))}"
    if key is not None:
        verified.add(key)
    return None


_CONTEXT_FREE = (TileOp, ViewOp, SlotOp, StageBorderOp, S.SyncOp)


def _signature(op: Operation) -> tuple | None:
    """What the verifier of a ``tile`` or ``sync`` op reads (None: verify every time).

    Types are keyed by identity: the parser shares one object per spelling, and hashing
    nested types by value costs more than verifying. Identity is sound because every type
    stays alive (held by its op) while one :func:`structural_errors` call runs."""
    if not isinstance(op, _CONTEXT_FREE) or op.regions or op.successors:
        return None
    try:
        key = (type(op), tuple(id(v.type) for v in op.operands),
               tuple(id(r.type) for r in op.results),
               tuple(op.properties.items()), tuple(op.attributes.items()))
        hash(key)
    except TypeError:  # an unhashable attribute
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


def target_errors(module: ModuleOp, target: Target) -> list[TileschedError]:
    """Rules that depend on the machine model."""
    errors: list[TileschedError] = []
    routed: dict[tuple, list[str]] = {}
    for op in module.walk():
        errors.extend(_space_errors(op, target))
        if isinstance(op, TileOp):
            key = (op.name, op.pipe, tuple(id(v.type) for v in op.operands))  # see _signature
            if key not in routed:
                routed[key] = _routing_errors(op, target)
            errors.extend(TileschedError(message, location_of(op)) for message in routed[key])
        elif op.name.startswith("sync."):
            errors.extend(_sync_errors(op, target))
    errors.extend(_capacity_errors(module, target))
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
        if op.pipe.data not in target.units:
            return [f"'{op.name}' pipe \"{op.pipe.data}\" is not a unit of target '{target.name}'; "
                    f"units: {', '.join(target.units)}"]
        return []
    spaces = [memory_space(v.type) for v in op.memref_operands]
    if any(s not in target.spaces for s in spaces):
        return []  # already reported as an unknown space
    reads = tuple(memory_space(v.type) for v in op.memref_operands[:-1])
    dst = spaces[-1] if spaces else None
    if target.route(op.name, reads, dst) is None:
        shown = ", ".join(f'"{s}"' for s in reads) or "nothing"
        return [f"no unit of target '{target.name}' runs '{op.name}' reading {shown} and "
                f"writing \"{dst}\""]
    return []


def _sync_errors(op: Operation, target: Target) -> list[TileschedError]:
    loc = location_of(op)
    for family, ops in _FAMILY_OPS.items():
        if isinstance(op, ops) and family != target.sync:
            return [TileschedError(
                f"'{op.name}' is {family}-family synchronization, but target '{target.name}' "
                f"synchronizes with {target.sync}", loc)]
    errors = []
    if isinstance(op, S.SetFlagOp | S.WaitFlagOp):
        for role, unit in (("src", op.src.data), ("dst", op.dst.data)):
            if unit not in target.queued_units:
                errors.append(TileschedError(
                    f"'{op.name}' {role} \"{unit}\" is not a queued unit of target '{target.name}'; "
                    f"units: {', '.join(target.queued_units)}", loc))
    elif isinstance(op, S.PipeBarrierOp) and op.pipe.data not in target.queued_units:
        errors.append(TileschedError(
            f"'sync.pipe_barrier' pipe \"{op.pipe.data}\" is not a queued unit of target "
            f"'{target.name}'; units: {', '.join(target.queued_units)}", loc))
    elif isinstance(op, S.CommitGroupOp | S.WaitGroupOp):
        queues = sorted({r.async_queue for r in target.routes if r.async_queue is not None})
        if op.queue.value.data not in queues:
            errors.append(TileschedError(
                f"'{op.name}' queue {op.queue.value.data} does not exist on target '{target.name}'; "
                f"async queues: {queues}", loc))
    return errors


def _capacity_errors(module: ModuleOp, target: Target) -> list[TileschedError]:
    used: dict[str, int] = defaultdict(int)
    first: dict[str, Operation] = {}
    for op in module.walk():
        if isinstance(op, memref.AllocOp) and isinstance(op.memref.type, MemRefType):
            space = memory_space(op.memref.type)
            if space in target.spaces:
                used[space] += math.prod(op.memref.type.get_shape()) * element_bytes(op.memref.type)
                first.setdefault(space, op)
    errors = []
    for space, size in used.items():
        capacity = target.spaces[space].capacity
        if capacity is not None and size > capacity:
            errors.append(TileschedError(
                f"allocations in space \"{space}\" need {size} bytes, but target '{target.name}' "
                f"has {capacity} bytes", location_of(first[space])))
    return errors


def _clean(message: str) -> str:
    return " ".join(message.split())
