"""The element-exact liveness behind tile.last_use, against the independent trace checker."""

from __future__ import annotations

import pathlib
import sys

from hypothesis import HealthCheck, given, settings
from xdsl.dialects.builtin import DenseArrayBase, i1

from tilesched.analysis.fusion_liveness import function_liveness
from tilesched.ir import parse_text
from tilesched.ir.tile import LAST_USE, CallOp, TileOp
from tilesched.sim.lowering.lower import lower_module
from tilesched.target import load_target

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "transforms"))
from fusion_kernels import flags_in_trace, true_last_uses, vector_kernel  # noqa: E402

A2 = load_target("ascend-a2")
T = 'memref<16x32xf32, "UB">'


def flags_of(text: str) -> dict[str, list[bool]]:
    """The analysis' flags, by the op's first line of text."""
    module = parse_text(text, "k.mlir")
    function = module.ops.first
    facts = function_liveness(function)
    return {f"{op.name} {' '.join(v.name_hint or '?' for v in op.operands)}": facts.flags(op)
            for op in function.walk() if isinstance(op, TileOp)}


def agrees_with_checker(text: str) -> None:
    """Mark every tile op with the analysis' flags and compare with the checker on the trace."""
    module = parse_text(text, "k.mlir")
    function = module.ops.first
    facts = function_liveness(function)
    for op in function.walk():
        if isinstance(op, TileOp) and not isinstance(op, CallOp):
            op.attributes[LAST_USE] = DenseArrayBase.from_list(i1, [int(f) for f in facts.flags(op)])
    trace = lower_module(module, A2)
    truth = true_last_uses(trace)
    for key, flag in flags_in_trace(trace).items():
        if key in truth:
            assert flag == truth[key], f"{key}: analysis {flag}, checker {truth[key]}"


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(vector_kernel(loop=True))
def test_every_flag_matches_the_checker_in_loops(text):
    agrees_with_checker(text)


@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(vector_kernel(loop=False))
def test_every_flag_matches_the_checker_straight_line(text):
    agrees_with_checker(text)


VIEWS = f"""
func.func @views(%y: memref<16x32xf32, "GM">) {{
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %big = memref.alloc() : memref<16x32xf32, "UB">
  %a = memref.alloc() : memref<8x32xf32, "UB">
  %b = memref.alloc() : memref<8x32xf32, "UB">
  %top = tile.view %big[%c0, %c0] {{sizes = array<i64: 8, 32>}} : {T} -> memref<8x32xf32, "UB">
  %low = tile.view %big[%c8, %c0] {{sizes = array<i64: 8, 32>}} : {T} -> memref<8x32xf32, "UB">
  tile.fill %big {{value = 1.0 : f32}} : {T}
  tile.exp %top, %a : memref<8x32xf32, "UB">, memref<8x32xf32, "UB">
  tile.exp %low, %b : memref<8x32xf32, "UB">, memref<8x32xf32, "UB">
  tile.add %a, %b, %low : memref<8x32xf32, "UB">, memref<8x32xf32, "UB">, memref<8x32xf32, "UB">
  tile.store %big, %y : {T}, memref<16x32xf32, "GM">
  func.return
}}
"""


def test_disjoint_views_of_one_buffer_are_decided_exactly():
    flags = flags_of(VIEWS)
    assert flags["tile.exp top a"] == [False, False]  # %top is stored with %big afterwards
    assert flags["tile.exp low b"] == [True, False]   # %low is overwritten by add before the store
    agrees_with_checker(VIEWS)


UNKNOWN_TRIPS = f"""
func.func @unknown(%n: index, %y: memref<16x32xf32, "GM">) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : {T}
  %b = memref.alloc() : {T}
  %w = memref.alloc() : {T}
  tile.fill %w {{value = 2.0 : f32}} : {T}
  tile.fill %a {{value = 1.0 : f32}} : {T}
  scf.for %i = %c0 to %n step %c1 {{
    tile.mul %a, %w, %b : {T}, {T}, {T}
    tile.exp %b, %a : {T}, {T}
  }}
  tile.store %a, %y : {T}, memref<16x32xf32, "GM">
  func.return
}}
"""


def test_a_loop_with_unknown_trips_reaches_the_fixpoint():
    flags = flags_of(UNKNOWN_TRIPS)
    assert flags["tile.mul a w b"] == [True, False, False]  # %a rewritten by exp; %w read again
    assert flags["tile.exp b a"] == [True, False]


BRANCHES = f"""
func.func @branches(%c: i1, %y: memref<16x32xf32, "GM">) {{
  %a = memref.alloc() : {T}
  %b = memref.alloc() : {T}
  tile.fill %a {{value = 1.0 : f32}} : {T}
  tile.exp %a, %b : {T}, {T}
  scf.if %c {{
    tile.store %a, %y : {T}, memref<16x32xf32, "GM">
  }} else {{
    tile.store %b, %y : {T}, memref<16x32xf32, "GM">
  }}
  func.return
}}
"""


def test_a_read_in_either_branch_keeps_a_tile_live():
    assert flags_of(BRANCHES)["tile.exp a b"] == [False, False]


def test_memrefs_of_unknown_origin_make_every_flag_false():
    text = f"""
func.func @opaque(%c: i1) {{
  %a = memref.alloc() : {T}
  %b = memref.alloc() : {T}
  %m = scf.if %c -> ({T}) {{
    scf.yield %a : {T}
  }} else {{
    scf.yield %b : {T}
  }}
  tile.exp %a, %b : {T}, {T}
  tile.exp %m, %m : {T}, {T}
  func.return
}}
"""
    assert not any(any(f) for f in flags_of(text).values())
