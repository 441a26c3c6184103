"""Valid regions: which elements of a tile's static storage a tile op computes on (docs/ir.md).

A memref value made by ``tile.view ... valid [%v0, %v1, ...]`` has a *valid region*: its first
``v_d`` elements along each dimension ``d`` (PTO-ISA's ``Tile<..., RowValid, ColValid>`` with
``DYNAMIC`` valid extents, PTOAS's ``!pto.tile_buf<vec, 32x32xf32, valid=?x?>``). Every other
memref value is valid over its whole static shape. A tile op computes on the valid region of
its operands; PTO-ISA asserts at run time that they agree (``TADD``: "src0 valid shape mismatch
with output tile dst shape"), tilesched requires the agreement to be *provable* in the IR, so
that a program it accepts never trips that assertion and every pass can rely on it.

Two extents provably agree when their :func:`extent_key` is equal: the same constant (an
``arith`` expression of constants is folded), the same SSA value, or the same ``arith``
expression of agreeing operands (``minsi(%vrow, 32)`` computed twice; commutative operands in
either order). This is the canonical form PTOAS's shape solver uses (``canonicalizeValue``);
it never equates values that can differ at run time (``minsi(%vrow, 32)`` against ``%vrow``).
One definition, used by the verifier and by ``fuse-tiles`` (ops fuse only when their valid
regions agree).
"""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.ir import Operation, SSAValue

from tilesched.ir.annotations import constant_index
from tilesched.ir.tile import MatmulOp, ReshapeOp, TileOp, ViewOp, _RowExpandOp, _RowReduceOp
from tilesched.ir.types import memref_shape

_COMMUTATIVE = frozenset({"arith.addi", "arith.muli", "arith.minsi", "arith.maxsi", "arith.minui",
                          "arith.maxui", "arith.andi", "arith.ori", "arith.xori"})
_DEPTH = 16  # deepest expression compared structurally; deeper ones compare by SSA value


def extent_key(value: SSAValue, depth: int = _DEPTH) -> Hashable:
    """A key equal for two ``index`` values exactly when they provably hold the same number
    (see the module docstring): an ``int``, the value itself, or ``(op name, properties,
    operand keys)`` for an ``arith`` expression."""
    known = constant_index(value)
    if known is not None:
        return known
    owner = value.owner
    if depth and isinstance(owner, Operation) and owner.name.startswith("arith.") \
            and len(owner.results) == 1 and not owner.regions:
        operands = [extent_key(o, depth - 1) for o in owner.operands]
        if owner.name in _COMMUTATIVE:
            operands.sort(key=repr)
        properties = tuple(sorted((k, str(v)) for k, v in owner.properties.items()))
        return (owner.name, properties, tuple(operands))
    return value


def has_valid_region(value: SSAValue) -> bool:
    """Was ``value`` made by a ``tile.view`` with ``valid`` extents?"""
    owner = value.owner
    return type(owner) is ViewOp and len(owner.indices) > len(owner.sizes.get_values())


def valid_region(value: SSAValue) -> tuple[Hashable, ...]:
    """The :func:`extent_key` of each dimension's valid extent of memref ``value`` (its static
    size where it has no valid region)."""
    owner = value.owner
    if isinstance(owner, ViewOp) and owner.valid:
        return tuple(extent_key(v) for v in owner.valid)
    return memref_shape(value.type)


def is_partial(value: SSAValue) -> bool:
    """May ``value``'s valid region be smaller than its shape? (A write through it may then
    leave elements of the storage as they were.)"""
    return has_valid_region(value) and valid_region(value) != memref_shape(value.type)


def describe_extent(value: SSAValue) -> str:
    known = constant_index(value)
    if known is not None:
        return str(known)
    return f"%{value.name_hint}" if value.name_hint else f"a value of '{value.owner.name}'" \
        if isinstance(value.owner, Operation) else "a block argument"


def describe_region(value: SSAValue) -> str:
    """A value's valid region as the program wrote it (``[%row, 32]``)."""
    owner = value.owner
    if isinstance(owner, ViewOp) and owner.valid:
        return "[" + ", ".join(describe_extent(v) for v in owner.valid) + "]"
    return "[" + ", ".join(map(str, memref_shape(value.type))) + "] (its whole shape)"


def _pairs(op: TileOp) -> list[tuple[int, int, int, int]]:
    """(operand, dim, operand, dim) pairs of ``op``'s memref operands whose valid extents must
    agree, by the op's shape rule (docs/ir.md)."""
    count = len(op.memref_operands)
    if isinstance(op, MatmulOp):  # a MxK, b KxN, c MxN
        return [(0, 0, 2, 0), (0, 1, 1, 0), (1, 1, 2, 1)]
    if isinstance(op, _RowReduceOp):  # a MxN -> dst Mx1
        return [(0, 0, 1, 0)]
    if isinstance(op, _RowExpandOp):  # a MxN, row Mx1, dst MxN
        return [(0, 0, 2, 0), (0, 1, 2, 1), (0, 0, 1, 0)]
    rank = len(memref_shape(op.memref_operands[0].type)) if count else 0
    return [(0, d, k, d) for k in range(1, count) for d in range(rank)]


def valid_region_error(op: TileOp) -> str | None:
    """Why ``op``'s operands' valid regions are not provably consistent, or None."""
    memrefs = op.memref_operands
    if not any(has_valid_region(v) for v in memrefs):
        return None
    if isinstance(op, ReshapeOp):
        partial = [v for v in memrefs if is_partial(v)]
        if partial:
            return (f"'{op.name}' operand with valid region {describe_region(partial[0])} may not be "
                    "wholly valid; a reshape keeps bytes, not a valid region")
        return None
    if not isinstance(op, MatmulOp | _RowReduceOp | _RowExpandOp) \
            and len({len(memref_shape(v.type)) for v in memrefs}) > 1:
        return None  # the op's own shape rule reports it
    regions = [valid_region(v) for v in memrefs]
    for a, da, b, db in _pairs(op):
        if regions[a][da] != regions[b][db]:
            where = f"dimension {da}" if da == db else f"dimensions {da} and {db}"
            return (f"'{op.name}' operands {a} and {b} have valid regions {describe_region(memrefs[a])} "
                    f"and {describe_region(memrefs[b])}: their extents in {where} cannot be proven "
                    "equal (use one value or the same expression; PTO-ISA requires them equal)")
    if isinstance(op, _RowReduceOp | _RowExpandOp):
        if regions[1][1] != 1:  # the Mx1 operand: its one column is valid
            return (f"'{op.name}' one-column operand has valid region {describe_region(memrefs[1])}: "
                    "its column extent must be 1")
    return None
