"""Numpy semantics of every tile op, checked against direct numpy expressions."""

from __future__ import annotations

import numpy as np
import pytest

from tilesched.sim.semantics import evaluate, random_values, round_bfloat16, storage_dtype, store

RNG = np.random.default_rng(7)
A16 = RNG.uniform(-1, 1, (4, 8)).astype(np.float16)
B16 = RNG.uniform(0.5, 1, (4, 8)).astype(np.float16)
F32 = np.dtype(np.float32)
F16 = np.dtype(np.float16)


def _run(name, inputs, scalars=(), props=None, shape=(4, 8), dtype=F16):
    return evaluate(name, list(inputs), list(scalars), props or {}, shape, dtype)


@pytest.mark.parametrize(("name", "expect"), [
    ("tile.add", lambda a, b: a + b), ("tile.sub", lambda a, b: a - b),
    ("tile.mul", lambda a, b: a * b), ("tile.div", lambda a, b: a / b),
    ("tile.max", np.maximum), ("tile.min", np.minimum),
])
def test_binary_ops_compute_in_float32(name, expect):
    got = _run(name, [A16, B16]).astype(F16)
    want = expect(A16.astype(F32), B16.astype(F32)).astype(F16)
    assert np.array_equal(got, want)


@pytest.mark.parametrize(("name", "expect"), [
    ("tile.adds", lambda a: a + 0.5), ("tile.muls", lambda a: a * 0.5),
    ("tile.maxs", lambda a: np.maximum(a, 0.5)),
])
def test_scalar_ops(name, expect):
    assert np.array_equal(_run(name, [A16], [0.5]).astype(F16), expect(A16.astype(F32)).astype(F16))


@pytest.mark.parametrize(("name", "expect"), [
    ("tile.exp", np.exp), ("tile.neg", np.negative), ("tile.abs", np.abs),
    ("tile.relu", lambda a: np.maximum(a, 0)),
])
def test_unary_ops(name, expect):
    assert np.allclose(_run(name, [A16]).astype(F16), expect(A16.astype(F32)).astype(F16))


def test_moves_and_cast_convert_dtype():
    for name in ("tile.load", "tile.store", "tile.copy", "tile.cast"):
        got = _run(name, [A16], dtype=F32)
        assert np.array_equal(got.astype(F32), A16.astype(F32))


def test_matmul_accumulates_in_float32():
    a = RNG.uniform(-1, 1, (4, 16)).astype(np.float16)
    b = RNG.uniform(-1, 1, (16, 8)).astype(np.float16)
    c = RNG.uniform(-1, 1, (4, 8)).astype(np.float32)
    want = a.astype(F32) @ b.astype(F32)
    assert np.allclose(_run("tile.matmul", [a, b], shape=(4, 8), dtype=F32), want)
    got = _run("tile.matmul", [a, b, c], props={"accumulate": True}, shape=(4, 8), dtype=F32)
    assert np.allclose(got, want + c)


def test_row_reductions_and_expansions():
    assert np.allclose(_run("tile.rowsum", [A16], shape=(4, 1), dtype=F32),
                       A16.astype(F32).sum(axis=1, keepdims=True))
    assert np.array_equal(_run("tile.rowmax", [A16], shape=(4, 1)).astype(F16),
                          A16.max(axis=1, keepdims=True))
    row = B16[:, :1]
    for name, op in (("tile.rowexpand_sub", np.subtract), ("tile.rowexpand_mul", np.multiply),
                     ("tile.rowexpand_div", np.divide)):
        want = op(A16.astype(F32), row.astype(F32)).astype(F16)
        assert np.array_equal(_run(name, [A16, row]).astype(F16), want)


def test_fill_reshape_call():
    assert np.all(_run("tile.fill", [], props={"value": 3.0}) == 3.0)
    assert np.array_equal(_run("tile.reshape", [A16], shape=(8, 4)), A16.reshape(8, 4))
    bytes_view = _run("tile.reshape", [A16], shape=(4, 4), dtype=F32)
    assert bytes_view.dtype == F32 and bytes_view.tobytes() == A16.tobytes()
    assert _run("tile.call", [A16]) is None


def test_integer_division_truncates_toward_zero():
    a = np.array([[-7, 7]], dtype=np.int32)
    b = np.array([[2, 2]], dtype=np.int32)
    root = np.zeros((1, 2), dtype=np.int32)
    store(root, (slice(0, 1), slice(0, 2)), _run("tile.div", [a, b], shape=(1, 2)), "int32")
    assert root.tolist() == [[-3, 3]]


def test_bfloat16_rounding_and_storage():
    assert storage_dtype("bfloat16") == F32
    x = np.array([1.0 + 2 ** -9, 1.0 + 3 * 2 ** -9, np.inf], dtype=np.float32)
    assert round_bfloat16(x).tolist() == [1.0, 1.0 + 2 ** -7, np.inf]


def test_random_values_are_bounded_and_nonzero():
    rng = np.random.default_rng(0)
    floats = random_values((64, 64), "float16", rng)
    assert floats.dtype == F16 and np.all(np.abs(floats) >= 0.5) and np.all(np.abs(floats) <= 1)
    ints = random_values((64,), "int32", rng)
    assert np.all(ints != 0) and np.all(np.abs(ints) < 8)
    assert random_values((3,), "bool", rng).dtype == np.bool_


def test_unknown_op_is_an_error():
    with pytest.raises(ValueError):
        _run("tile.frobnicate", [A16])
