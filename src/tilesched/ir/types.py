"""Helpers on memref types: static shapes, element sizes and memory-space names."""

from __future__ import annotations

import math

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    Signedness,
    StringAttr,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

_FLOAT_BYTES = {Float16Type: 2, BFloat16Type: 2, Float32Type: 4, Float64Type: 8}

# numpy storage for each element type (bf16 is stored as float32, rounded to bf16 on write).
NUMPY_DTYPES = {"f16": "float16", "bf16": "float32", "f32": "float32", "f64": "float64",
                "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "i1": "bool"}


# Largest finite value of each float type a scalar argument may have.
_FLOAT_MAX = {Float16Type: 65504.0, BFloat16Type: 3.3895313892515355e38,
              Float32Type: 3.4028234663852886e38, Float64Type: 1.7976931348623157e308}


def scalar_value_error(kind: Attribute, value: int | float) -> str | None:
    """Why ``value`` does not fit a scalar of type ``kind`` (``index``: 64-bit signed; ``iN``
    signless: -2^(N-1) .. 2^N - 1, ``i1`` 0 or 1; ``siN``/``uiN`` their signed or unsigned
    range; floats: finite values up to the type's largest), or None."""
    if isinstance(kind, IndexType):
        lo, hi = -(1 << 63), (1 << 63) - 1
    elif isinstance(kind, IntegerType):
        width, sign = kind.width.data, kind.signedness.data
        if sign == Signedness.SIGNED:
            lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
        elif sign == Signedness.UNSIGNED or width == 1:
            lo, hi = 0, (1 << width) - 1
        else:
            lo, hi = -(1 << (width - 1)), (1 << width) - 1
    else:
        top = next((m for t, m in _FLOAT_MAX.items() if isinstance(kind, t)), None)
        if top is None or not isinstance(value, int | float) or math.isnan(value) \
                or math.isinf(value) or abs(value) <= top:
            return None
        return f"{value} is out of range for {kind} (largest finite value {top:g})"
    if isinstance(value, int) and not lo <= value <= hi:
        return f"{value} is out of range for {kind} ({lo} .. {hi})"
    return None


def memref_shape(memref: Attribute) -> tuple[int, ...]:
    """The static shape of a memref type."""
    assert isinstance(memref, MemRefType)
    return tuple(memref.get_shape())


def element_bytes(memref: MemRefType) -> int:
    """Bytes per element (i1 counts as one byte)."""
    element = memref.element_type
    for kind, size in _FLOAT_BYTES.items():
        if isinstance(element, kind):
            return size
    if isinstance(element, IntegerType):
        return max(1, element.width.data // 8)
    raise VerifyException(f"unsupported element type {element}")


def memref_type_error(memref: MemRefType) -> str | None:
    """Why tilesched cannot hold ``memref``'s elements (an element type with no size or numpy
    storage: ``f8E4M3FN``, ``tf32``, ``complex<f32>``, ``index``, ``vector<4xf32>``...), or None."""
    if element_type_name(memref) in NUMPY_DTYPES:
        return None
    return (f"element type {memref.element_type} of {memref} is not supported; use one of "
            + ", ".join(NUMPY_DTYPES))


def element_type_name(memref: MemRefType) -> str:
    """``f16``, ``f32``, ``i8``, ... as written in MLIR."""
    return str(memref.element_type)


def memory_space(memref: Attribute) -> str | None:
    """The memory-space string of a memref (``"L1"``), or None when it has none."""
    assert isinstance(memref, MemRefType)
    space = memref.memory_space
    if isinstance(space, StringAttr):
        return space.data
    if isinstance(space, NoneAttr):
        return None
    return str(space)


def verify_tile_memref(memref: MemRefType, op_name: str) -> None:
    """Tile operands need a static shape and a supported element type."""
    if any(dim < 0 for dim in memref.get_shape()):
        raise VerifyException(f"'{op_name}' operands need a static shape, got {memref}")
    if element_type_name(memref) not in NUMPY_DTYPES:
        raise VerifyException(
            f"'{op_name}' element type {memref.element_type} is not supported; use one of "
            + ", ".join(NUMPY_DTYPES)
        )
    space = memref.memory_space
    if not isinstance(space, StringAttr | NoneAttr):
        raise VerifyException(
            f"'{op_name}' memory space must be a string naming a target space, got {space}"
        )
