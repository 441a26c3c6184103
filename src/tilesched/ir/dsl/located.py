"""Locations of DSL calls and checks of Python values: every mistake is a located error."""

from __future__ import annotations

import contextlib
import itertools
import pathlib
import sys
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import (
    BFloat16Type,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    IntAttr,
    IntegerType,
    MemRefType,
    StringAttr,
)
from xdsl.ir import Attribute, SSAValue

from tilesched.diagnostics import Location, TileschedError

DTYPES: dict[str, Attribute] = {
    "f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "f64": Float64Type(),
    "i1": IntegerType(1), "i8": IntegerType(8), "i16": IntegerType(16),
    "i32": IntegerType(32), "i64": IntegerType(64),
}

_DSL_DIR = str(pathlib.Path(__file__).parent)
_SKIPPED_FILES = {contextlib.__file__}


def _in_dsl(filename: str) -> bool:
    """Is ``filename`` part of the DSL itself (this package or contextlib), not user code?"""
    return filename in _SKIPPED_FILES or str(pathlib.Path(filename).parent) == _DSL_DIR


# --- locations and errors ------------------------------------------------------------------


def _caller_location() -> Location | None:
    """``file:line:col`` of the innermost frame outside the DSL (the kernel author's line)."""
    frame = sys._getframe(1)
    while frame is not None and _in_dsl(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return None
    position = next(itertools.islice(frame.f_code.co_positions(), frame.f_lasti // 2, None), None)
    column = position[2] + 1 if position is not None and position[2] is not None else 1
    return Location(frame.f_code.co_filename, frame.f_lineno, column)


def _error(message: str) -> TileschedError:
    """A DSL usage error located at the caller's line."""
    return TileschedError(message, _caller_location())


def _file_loc(loc: Location | None) -> FileLineColLoc | None:
    if loc is None:
        return None
    return FileLineColLoc(StringAttr(loc.file), IntAttr(loc.line), IntAttr(loc.column))


# --- types ----------------------------------------------------------------------------------


def dtype_of(dtype: str | Attribute) -> Attribute:
    """The xDSL element type for ``"f16"``, ``"f32"``, ``"i8"``, ... (or a type passed through)."""
    if isinstance(dtype, Attribute):
        return dtype
    if dtype not in DTYPES:
        raise _error(f"unknown dtype '{dtype}'; valid dtypes: {', '.join(DTYPES)}")
    return DTYPES[dtype]


def _memref_type(shape: Sequence[int], dtype: str | Attribute, space: str) -> MemRefType:
    """``memref<SHAPE x DTYPE, "SPACE">`` after checking the shape and the space name."""
    shape = tuple(shape)
    if not shape or not all(_is_int(d) and d > 0 for d in shape):
        raise _error(f"a buffer shape must be a non-empty tuple of positive ints, got {shape!r}")
    if not isinstance(space, str) or not space:
        raise _error(f"a memory space must be a non-empty string such as \"UB\", got {space!r}")
    return MemRefType(dtype_of(dtype), shape, memory_space=StringAttr(space))


def _valid_name(name: Any) -> str:
    """``name`` if it can name an SSA value (``%name``), else a located error."""
    try:
        valid = isinstance(name, str) and SSAValue.extract_valid_name(name) == name
    except ValueError:
        valid = False
    if not valid:
        raise _error(f"{name!r} is not a valid value name (letters, digits, _ $ . -; not starting "
                     "with a digit)")
    return name


def _set_name(value: SSAValue, name: str) -> None:
    """Name ``value`` ``%name`` in the printed IR."""
    value.name_hint = _valid_name(name)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _non_negative(value: Any, what: str) -> int:
    if not _is_int(value) or value < 0:
        raise _error(f"{what} must be a non-negative int, got {value!r}")
    return value
