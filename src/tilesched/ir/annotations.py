"""Checks the verifier adds to the ops' own: annotation types and constant windows.

- The scheduling annotations of DESIGN.md §2 are discardable attributes, so xDSL accepts any
  value for them; a pass that later reads ``tile.stage = "zero"`` would treat the op as
  unscheduled. :func:`annotation_errors` gives each annotation its declared kind.
- A ``tile.view`` or ``tile.slot`` whose offsets are constants (``arith.constant``, or sums,
  differences and products of constants) is checked against its source's shape here, before
  any pass runs, instead of failing only when the simulator reaches it
  (:func:`constant_window_errors`). Offsets that depend on loop variables are the simulator's
  to check.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tilesched.ir.arith_eval import EVALUATED, fold
from tilesched.ir.tile import (
    ASYNC,
    ASYNC_STAGES,
    FUSION_GROUP,
    FUSION_ORDER,
    LAST_USE,
    ORDER,
    STAGE,
    SlotOp,
    ViewOp,
)
from tilesched.ir.types import memref_shape

TARGET_ATTR = "tile.target"

# Stages a loop may be pipelined into: software-pipeline emits a prologue and an epilogue per
# stage, and modulo-schedule caps its schedules at 64 stages; a hand-written tile.stage of 10^6
# would only make the pass run for hours.
MAX_STAGE = 1024
CORE_ATTRIBUTE = "tile.core"  # the core an op runs on (target/cores.py; a string)


def _non_negative_integer(attr: Attribute) -> bool:
    return isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType) \
        and attr.value.data >= 0


def _stage(attr: Attribute) -> bool:
    return _non_negative_integer(attr) and attr.value.data < MAX_STAGE


def _stage_list(attr: Attribute) -> bool:
    if isinstance(attr, DenseArrayBase):
        return isinstance(attr.elt_type, IntegerType) and all(0 <= v < MAX_STAGE
                                                              for v in attr.get_values())
    return isinstance(attr, ArrayAttr) and all(_stage(a) for a in attr.data)


def _flag_array(attr: Attribute) -> bool:
    return isinstance(attr, DenseArrayBase) and attr.elt_type == IntegerType(1)


# annotation -> (accepts its value, what it must be, as the message says it)
_KINDS: dict[str, tuple[Callable[[Attribute], bool], str]] = {
    STAGE: (_stage, f"an integer in 0..{MAX_STAGE - 1} (tile.stage = 0 : i64)"),
    ORDER: (_non_negative_integer, "a non-negative integer (tile.order = 0 : i64)"),
    FUSION_GROUP: (_non_negative_integer, "a non-negative integer"),
    FUSION_ORDER: (_non_negative_integer, "a non-negative integer"),
    ASYNC: (lambda a: isinstance(a, UnitAttr), "a unit attribute (written without a value)"),
    ASYNC_STAGES: (_stage_list, f"a list of stage numbers in 0..{MAX_STAGE - 1} ([0 : i64, 1 : i64])"),
    LAST_USE: (_flag_array, "an array<i1: ...> with one flag per memref operand"),
    CORE_ATTRIBUTE: (lambda attr: isinstance(attr, StringAttr) and bool(attr.data),
                     'a core name (tile.core = "AIV1")'),
}


def annotation_errors(op: Operation) -> list[str]:
    """Annotations of ``op`` whose value is not of their declared kind."""
    errors = []
    for name, attr in op.attributes.items():
        if name == TARGET_ATTR and isinstance(op, ModuleOp):
            if not isinstance(attr, StringAttr):
                errors.append(f"module attribute '{TARGET_ATTR}' must be a string naming a "
                              f"target, got {attr}")
            continue
        if name not in _KINDS:
            continue
        accepts, kind = _KINDS[name]
        if not accepts(attr):
            errors.append(f"'{op.name}' attribute '{name}' must be {kind}, got {attr}")
        elif name == LAST_USE:
            memrefs = sum(isinstance(v.type, MemRefType) for v in op.operands)
            if len(attr.get_values()) != memrefs:
                errors.append(f"'{op.name}' attribute '{LAST_USE}' has {len(attr.get_values())} "
                              f"flags but the op has {memrefs} memref operands")
    return errors


def constant_window_errors(op: Operation) -> list[str]:
    """A ``tile.view`` window or ``tile.slot`` index known at compile time to lie outside
    its source."""
    if isinstance(op, ViewOp) and isinstance(op.source.type, MemRefType):
        shape = memref_shape(op.source.type)
        errors = []
        for dim, (offset, size, extent) in enumerate(zip(op.offsets, op.size_list, shape,
                                                         strict=False)):
            start = constant_index(offset)
            if start is not None and (start < 0 or start + size > extent):
                errors.append(f"'tile.view' window [{start}, {start + size}) in dimension {dim} "
                              f"is outside its source dimension of size {extent}")
        for dim, (value, size) in enumerate(zip(op.valid, op.size_list, strict=False)):
            valid = constant_index(value)
            if valid is not None and not 0 <= valid <= size:
                errors.append(f"'tile.view' valid extent {valid} in dimension {dim} is outside "
                              f"0..{size} (the window's size)")
        return errors
    if isinstance(op, SlotOp) and isinstance(op.source.type, MemRefType):
        slots = memref_shape(op.source.type)[0]
        index = constant_index(op.index)
        if index is not None and not 0 <= index < slots:
            return [f"'tile.slot' index {index} is outside 0..{slots - 1} (the source has "
                    f"{slots} slots)"]
    return []


def constant_index(value: SSAValue, depth: int = 8) -> int | None:
    """The integer ``value`` always holds, when it is a constant or an ``arith`` expression of
    constants (``depth`` bounds the expression; folded by ``ir/arith_eval``, the simulator's
    semantics); None otherwise."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        attr = owner.value
        return attr.value.data if isinstance(attr, IntegerAttr) else None
    if depth == 0 or not isinstance(owner, Operation) or owner.name not in EVALUATED:
        return None
    values = []
    for operand in owner.operands:
        known = constant_index(operand, depth - 1)
        if known is None:
            return None
        values.append(known)
    result = fold(owner, values)
    return int(result) if isinstance(result, int) else None
