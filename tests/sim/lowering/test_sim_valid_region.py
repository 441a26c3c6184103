"""Valid regions in the simulator: tile ops on a ``tile.view ... valid [...]`` compute only on
the valid elements (the rest of the storage keeps its values), the extents are evaluated at run
time, and one outside the window is a located error."""

from __future__ import annotations

import numpy as np
import pytest

from tilesched.diagnostics import TileschedError
from tilesched.ir import parse_text, verify_module
from tilesched.sim.functional import Memory, run_reference
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target

A2 = load_target("ascend-a2")
T = 'memref<16x32xf32, "UB">'
R = 'memref<16x1xf32, "UB">'
KERNEL = f"""
func.func @k(%a: {T}, %b: {T}, %r: {R}, %vr: index, %vc: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %va = tile.view %a[%c0, %c0] valid [%vr, %vc] {{sizes = array<i64: 16, 32>}} : {T} -> {T}
  %vb = tile.view %b[%c0, %c0] valid [%vr, %vc] {{sizes = array<i64: 16, 32>}} : {T} -> {T}
  %vrow = tile.view %r[%c0, %c0] valid [%vr, %c1] {{sizes = array<i64: 16, 1>}} : {R} -> {R}
  tile.exp %va, %vb : {T}, {T}
  tile.rowmax %vb, %vrow : {T}, {R}
  func.return
}}
"""


def _run(args):
    """The trace, the seeded initial buffers and the buffers after the program ran in order."""
    module = parse_text(KERNEL, "k.mlir")
    verify_module(module, A2)
    trace = lower_module(module, A2, args)
    start = Memory(trace, 3, max_bytes=1 << 20)
    after = run_reference(trace, seed=3, max_bytes=1 << 20)
    return (trace, {b.name: start.root(b.id, 0).copy() for b in trace.buffers},
            {b.name: after.root(b.id, 0) for b in trace.buffers})


@pytest.mark.parametrize("vr, vc", [(5, 7), (16, 32), (0, 4), (3, 0)])
def test_ops_compute_only_on_the_valid_elements(vr, vc):
    trace, initial, after = _run({"vr": vr, "vc": vc})
    a, b, r = initial["a"], initial["b"], initial["r"]
    expected_b = b.copy()
    expected_b[:vr, :vc] = np.exp(a[:vr, :vc])
    expected_r = r.copy()
    expected_r[:vr, 0] = expected_b[:vr, :vc].max(axis=1, initial=-np.inf)
    assert np.allclose(after["b"], expected_b, rtol=1e-6)
    assert np.array_equal(after["a"], a)
    assert np.allclose(after["r"], expected_r, rtol=1e-6)
    assert simulate(trace).ok


def test_an_extent_outside_the_window_is_a_located_error():
    module = parse_text(KERNEL, "k.mlir")
    with pytest.raises(TileschedError) as error:
        lower_module(module, A2, {"vr": 17, "vc": 4})
    assert "valid extent 17 is outside 0..16" in str(error.value)
    assert "k.mlir:5:" in str(error.value)
