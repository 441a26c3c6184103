"""Numpy semantics of every tile op (DESIGN.md §2), used by the functional simulator.

Numeric rules (the cube and vector units' usual contract):

- storage keeps each buffer's element type; ``bfloat16`` is stored as float32 and rounded to
  bfloat16 (nearest-even) on every write;
- arithmetic on 16-bit floats is done in float32 and rounded once when stored (for + - * / this
  is the correctly rounded half-precision result);
- ``tile.matmul`` multiplies in float32 and accumulates in float32 (``c += a @ b`` reads ``c``);
- ``tile.rowsum`` / ``tile.rowmax`` reduce in float32;
- integer ``tile.div`` truncates toward zero (C semantics); division by zero and overflow follow
  IEEE (inf / nan) for floats and are left to numpy for integers, without warnings;
- ``tile.reshape`` keeps the bytes: same element type -> same values in row-major order, else the
  bytes are reinterpreted;
- ``tile.call`` is opaque: it changes no data (its unknown effects matter for ordering only).
"""

from __future__ import annotations

import numpy as np

_WIDE = {np.dtype(np.float16): np.float32}


def storage_dtype(name: str) -> np.dtype:
    """The numpy dtype that stores elements of type ``name`` (bfloat16 -> float32)."""
    if name == "bfloat16":
        return np.dtype(np.float32)
    if name == "index":
        return np.dtype(np.int64)
    return np.dtype(name)


def round_bfloat16(values: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (ties to even), kept as float32."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    finite = np.isfinite(values)
    rounded = np.where(finite, (bits + rounding) & np.uint32(0xFFFF0000), bits)
    return rounded.astype(np.uint32).view(np.float32)


def _work(x: np.ndarray) -> np.ndarray:
    """Operand in working precision: float32 for 16-bit floats, else unchanged."""
    wide = _WIDE.get(x.dtype)
    return x.astype(wide) if wide else x


def _f32(x: np.ndarray) -> np.ndarray:
    """float32 view of integer and 16/32-bit float data (float64 stays float64)."""
    return x.astype(np.float32) if x.dtype.kind in "fiub" and x.dtype != np.float64 else x


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """True division for floats, truncation toward zero for integers."""
    if a.dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu":
        return np.trunc(np.true_divide(a, b))
    return np.true_divide(a, b)


_BINARY = {
    "tile.add": np.add, "tile.sub": np.subtract, "tile.mul": np.multiply, "tile.div": _divide,
    "tile.max": np.maximum, "tile.min": np.minimum,
}
_SCALAR = {"tile.adds": np.add, "tile.subs": np.subtract, "tile.muls": np.multiply,
           "tile.maxs": np.maximum}
_UNARY = {
    "tile.exp": np.exp, "tile.neg": np.negative, "tile.abs": np.abs,
    "tile.relu": lambda x: np.maximum(x, 0), "tile.cast": lambda x: x,
    "tile.rsqrt": lambda x: 1 / np.sqrt(x),
}
_ROWEXPAND = {"tile.rowexpand_sub": np.subtract, "tile.rowexpand_mul": np.multiply,
              "tile.rowexpand_div": _divide}
_MOVES = ("tile.load", "tile.store", "tile.copy")


def evaluate(name: str, inputs: list[np.ndarray], scalars: list, props: dict,
             out_shape: tuple[int, ...], out_dtype: np.dtype) -> np.ndarray | None:
    """The value an op writes to its destination (``None`` for ``tile.call``).

    ``inputs`` are the memref operands it reads, in order (for ``matmul`` with ``accumulate``,
    the last one is the current destination), already shaped like the operands.
    """
    with np.errstate(all="ignore"):
        result = _evaluate(name, inputs, scalars, props, out_shape, out_dtype)
    if result is None:
        return None
    return np.asarray(result).reshape(out_shape)


def _evaluate(name, inputs, scalars, props, out_shape, out_dtype):
    """Dispatch on the op name (see the module docstring for the numeric rules)."""
    if name in _MOVES:
        return inputs[0]
    if name in _BINARY:
        return _BINARY[name](_work(inputs[0]), _work(inputs[1]))
    if name in _SCALAR:
        return _SCALAR[name](_work(inputs[0]), _scalar(scalars))
    if name in _UNARY:
        return _UNARY[name](_work(inputs[0]))
    if name in _ROWEXPAND:
        return _ROWEXPAND[name](_work(inputs[0]), _work(inputs[1]).reshape(-1, 1))
    if name == "tile.matmul":
        product = _f32(inputs[0]) @ _f32(inputs[1])
        return product + _f32(inputs[2]) if props.get("accumulate") else product
    if name == "tile.rowsum":
        return _f32(inputs[0]).sum(axis=-1, keepdims=True, dtype=np.float32)
    if name == "tile.rowmax":
        # a row with no valid column (tile.view ... valid [r, 0]) has the max's identity
        return _f32(inputs[0]).max(axis=-1, keepdims=True, initial=-np.inf)
    if name == "tile.fill":
        return np.full(out_shape, props.get("value", 0))
    if name == "tile.fills":  # fill from an SSA scalar
        return np.full(out_shape, _scalar(scalars))
    if name == "tile.reshape":
        return _reshape(inputs[0], out_shape, out_dtype)
    if name == "tile.call":
        return None
    raise ValueError(f"no numpy semantics for {name}")


def _scalar(scalars: list):
    """The scalar operand of ``adds`` / ``subs`` / ``muls`` / ``maxs`` / ``fills``."""
    if not scalars:
        raise ValueError("scalar tile op without a scalar operand")
    return scalars[0]


def _reshape(x: np.ndarray, out_shape: tuple[int, ...], out_dtype: np.dtype) -> np.ndarray:
    """Same bytes, new shape: values when the element type is kept, else reinterpreted bytes."""
    if x.dtype == out_dtype or x.size == int(np.prod(out_shape)):
        return x.reshape(out_shape)
    return np.frombuffer(np.ascontiguousarray(x).tobytes(), dtype=out_dtype).reshape(out_shape)


def store(root: np.ndarray, slices: tuple[slice, ...], value: np.ndarray, dtype_name: str) -> None:
    """Write ``value`` into ``root[slices]`` converting to the buffer's element type."""
    target_shape = root[slices].shape
    with np.errstate(all="ignore"):
        data = np.asarray(value).reshape(target_shape)
        if dtype_name == "bfloat16":
            data = round_bfloat16(data.astype(np.float32))
        elif root.dtype.kind in "iub" and data.dtype.kind == "f":
            data = np.nan_to_num(data, nan=0, posinf=0, neginf=0)
        root[slices] = data.astype(root.dtype, copy=False)


def random_values(shape: tuple[int, ...], dtype_name: str, rng: np.random.Generator) -> np.ndarray:
    """Seeded inputs: floats with magnitude in [0.5, 1) and a random sign (never 0, so division
    stays finite, and ``exp`` of sums of a few hundred products stays finite in float32);
    integers in ±[1, 8); booleans uniform. Always an array of ``shape`` (also rank 0), built in
    the storage type (plus a one-byte sign per element), never in float64 or int64 first: a
    buffer costs its own size, so ``--max-bytes`` bounds what equiv allocates."""
    dtype = storage_dtype(dtype_name)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape, dtype=np.int8).astype(bool).reshape(shape)
    negative = rng.integers(0, 2, size=shape, dtype=np.int8).astype(bool).reshape(shape)
    if dtype.kind in "iu":
        values = np.asarray(rng.integers(1, 8, size=shape, dtype=dtype)).reshape(shape)
        if dtype.kind == "i":
            np.negative(values, out=values, where=negative)
        return values
    work = np.float64 if dtype == np.float64 else np.float32
    values = np.asarray(rng.random(size=shape, dtype=work)).reshape(shape)
    values *= 0.5
    values += 0.5
    np.negative(values, out=values, where=negative)
    values = values.astype(dtype, copy=False)
    return round_bfloat16(values) if dtype_name == "bfloat16" else values
