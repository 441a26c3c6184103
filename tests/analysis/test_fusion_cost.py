"""Durations of ops in fused spans (analysis.fusion_cost) as the simulator sees them."""

from __future__ import annotations

import math

from tilesched.analysis.units import op_cycles
from tilesched.ir import parse_text, verify_module
from tilesched.ir.tile import TileOp
from tilesched.report.sim_json import fused_spans
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target

A2 = load_target("ascend-a2")
T = 'memref<64x128xf32, "UB">'
R = 'memref<64x1xf32, "UB">'


def softmax(annotate: bool) -> str:
    def ann(order: int, flags: str) -> str:
        if not annotate:
            return ""
        return (f" {{tile.fusion_group = 0 : i64, tile.fusion_order = {order} : i64, "
                f"tile.last_use = array<i1: {flags}>}}")
    return f"""
func.func @sm(%x: memref<64x128xf32, "GM">, %y: memref<64x128xf32, "GM">) {{
  %xf = memref.alloc() : {T}
  %m = memref.alloc() : {R}
  %e = memref.alloc() : {T}
  %s = memref.alloc() : {R}
  tile.load %x, %xf : memref<64x128xf32, "GM">, {T}
  tile.rowmax %xf, %m{ann(0, "false, false")} : {T}, {R}
  tile.rowexpand_sub %xf, %m, %xf{ann(1, "true, true, false")} : {T}, {R}, {T}
  tile.exp %xf, %e{ann(2, "true, false")} : {T}, {T}
  tile.rowsum %e, %s{ann(3, "false, false")} : {T}, {R}
  tile.rowexpand_div %e, %s, %e{ann(4, "true, true, false")} : {T}, {R}, {T}
  tile.store %e, %y : {T}, memref<64x128xf32, "GM">
  func.return
}}
"""


def durations(text: str) -> list[int]:
    module = parse_text(text, "k.mlir")
    verify_module(module, A2)
    return [op_cycles(op, A2) for op in module.walk()
            if isinstance(op, TileOp) and op.name not in ("tile.load", "tile.store")]


def test_a_fused_span_pays_the_startup_once_and_keeps_intermediates_in_registers():
    plain, fused = durations(softmax(False)), durations(softmax(True))
    v = A2.units["V"]
    # the head streams everything through UB and pays its own startup: exactly its unfused
    # cost, the vendor's formula (issue 30 follow-up: one per-op model, fused or not)
    assert fused[0] == plain[0]
    assert all(f < p for f, p in zip(fused[1:], plain[1:], strict=True))
    # exp reads %xf (written by rowexpand_sub in the span) and its %e dies in the span: it pays
    # the loop instruction and its formula's streaming part at the register rate
    startup, streaming = v.formulas["tile.exp"].split("f32", (64, 128))
    assert startup + streaming == plain[2]
    ratio = v.bytes_per_cycle / v.fusion.register_bytes_per_cycle
    assert fused[2] == v.fusion.member_fixed + math.ceil(streaming * ratio)
    assert sum(fused) < 0.75 * sum(plain)


def test_the_simulator_runs_spans_under_the_model_and_counts_them():
    results = {}
    for annotate in (False, True):
        trace = lower_module(parse_text(softmax(annotate), "k.mlir"), A2)
        results[annotate] = (simulate(trace), fused_spans(trace))
    (plain, no_spans), (fused, spans) = results[False], results[True]
    assert (no_spans, spans) == (0, 1)
    assert fused.units["V"]["busy"] == sum(durations(softmax(True)))
    assert fused.units["V"]["busy"] < plain.units["V"]["busy"]


def test_a_span_of_one_op_is_not_fused():
    text = softmax(True).replace("tile.fusion_group = 0 : i64, tile.fusion_order = 1",
                                 "tile.fusion_group = 7 : i64, tile.fusion_order = 0")
    # rowmax is now alone in group 0 (rowexpand_sub splits it from the rest): plain cost
    assert durations(text)[0] == durations(softmax(False))[0]


def _span(lines: list[str], tiles: int) -> str:
    small = 'memref<16x32xf32, "UB">'
    body = [f"  {line.replace(' : ', f' {{tile.fusion_group = 0 : i64, tile.fusion_order = {k} : i64}} : ', 1)}"
            for k, line in enumerate(lines)]
    allocs = [f"  %t{k} = memref.alloc() : {small}" for k in range(tiles)]
    return ("func.func @c() {\n  %c = arith.constant 1.0 : f32\n" + "\n".join(allocs + body)
            + "\n  func.return\n}\n").replace("SMALL", small)


def test_a_chain_through_many_tiles_holds_few_at_once_and_never_spills():
    # 10 ops touch 11 distinct tiles, but only two are live at any op (issue 27, item 3)
    chain = [f"tile.adds %t{k}, %c, %t{k + 1} : SMALL, f32, SMALL" for k in range(10)]
    cycles = durations(_span(chain, 11))
    assert len(set(cycles[1:])) == 1


def test_a_span_beyond_its_live_tiles_pays_spills():
    # ops 0..8 each write a tile from t9 that the tail of the span reads: op k holds t9 and
    # t0..tk at once (k + 2 tiles)
    fan = [f"tile.adds %t9, %c, %t{k} : SMALL, f32, SMALL" for k in range(9)]
    tail = ["tile.add %t0, %t1, %t10 : SMALL, SMALL, SMALL"]
    tail += [f"tile.add %t10, %t{k}, %t10 : SMALL, SMALL, SMALL" for k in range(2, 9)]
    cycles = durations(_span(fan + tail, 11))
    live = A2.units["V"].fusion.live_tiles
    spill = A2.units["V"].fusion.spill_cycles(16 * 32, 256)
    assert cycles[live - 2] == cycles[1]  # live tiles exactly at the limit: no spill
    assert cycles[live - 1] - cycles[1] == spill  # one over the limit
    assert cycles[live] - cycles[1] == spill  # and one more: each rise of the peak pays once
