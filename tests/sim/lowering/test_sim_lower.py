"""Lowering MLIR to traces: unrolling, index math, regions, routing, errors."""

from __future__ import annotations

import pytest

from tilesched.diagnostics import TileschedError
from tilesched.ir import parse_text
from tilesched.sim.lowering.lower import lower_module, machine_model, parse_arg_values
from tilesched.sim.run import simulate
from tilesched.sim.trace import Access
from tilesched.target import load_target

A2 = load_target("ascend-a2")

LOOP = """
builtin.module {
  func.func @k(%x: memref<64x16xf16, "GM">, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %ub = memref.alloc() : memref<2x16x16xf16, "UB">
    scf.for %i = %c0 to %n step %c1 {
      %s = arith.remui %i, %c2 : index
      %off = arith.muli %i, %c16 : index
      %blk = tile.view %x[%off, %c0] {sizes = array<i64: 16, 16>} : memref<64x16xf16, "GM"> -> memref<16x16xf16, "GM">
      %slot = tile.slot %ub[%s] : memref<2x16x16xf16, "UB"> -> memref<16x16xf16, "UB">
      %first = arith.cmpi eq, %i, %c0 : index
      scf.if %first {
        tile.load %blk, %slot : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">
      } else {
        tile.load %blk, %slot {latency = 7 : i64} : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">
      }
      "sync.set_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()
      "sync.wait_flag"() {src = "MTE2", dst = "V", event = 0 : i64} : () -> ()
      tile.muls %slot, %c16, %slot : memref<16x16xf16, "UB">, index, memref<16x16xf16, "UB">
    }
    func.return
  }
}
"""


def _lower(text: str, args=None, target=A2):
    return lower_module(parse_text(text, "k.mlir"), target, args)


def test_loop_is_unrolled_with_regions_routes_and_latency():
    trace = _lower(LOOP, {"n": 3})
    ops = trace.programs["S"]
    assert [op.name for op in ops] == ["tile.load", "sync.set_flag", "sync.wait_flag", "tile.muls"] * 3
    loads = [op for op in ops if op.name == "tile.load"]
    assert [op.operands[0].region for op in loads] == [((0, 16), (0, 16)), ((16, 32), (0, 16)),
                                                       ((32, 48), (0, 16))]
    assert [op.operands[1].region[0] for op in loads] == [(0, 1), (1, 2), (0, 1)]
    assert all(op.unit == "MTE2" for op in loads)
    assert loads[1].duration == 7 and loads[0].duration != 7
    muls = ops[3]
    assert muls.unit == "V" and muls.operands[1] == 16 and isinstance(muls.operands[0], Access)
    assert ops[1].props == {"src": "MTE2", "dst": "V", "event": 0}
    assert ops[0].loc.startswith("k.mlir:")
    assert [b.name for b in trace.buffers] == ["x", "ub"] and trace.buffers[0].is_argument


def test_zero_trip_loop_and_simulation():
    assert _lower(LOOP, {"n": 0}).programs["S"] == []
    result = simulate(_lower(LOOP, {"n": 4}))
    # the flag orders each load before its muls (RAW), but nothing orders the muls of
    # iteration i before the load refilling its slot at i + 2 (loop-carried WAR); ``first`` is
    # the side earlier in the source
    assert [(r.first.op, r.second.op, r.count) for r in result.races] == [
        ("tile.load", "tile.muls", 4)]
    # and the flag's reuse is unordered; the loads (GM->UB at the vendor's rate) outrun the muls,
    # so this timing also sets the flag while it is still set
    assert {v.kind for v in result.violations} == {"unordered-flag-reuse", "double-set"}


def test_missing_and_unknown_args_are_located_errors():
    with pytest.raises(TileschedError, match="--arg n=VALUE") as err:
        _lower(LOOP)
    assert str(err.value.loc).startswith("k.mlir:3:")
    with pytest.raises(TileschedError, match="no such scalar argument"):
        _lower(LOOP, {"n": 1, "m": 2})


def test_view_outside_its_buffer_is_an_error():
    with pytest.raises(TileschedError, match="outside"):
        _lower(LOOP, {"n": 5})


def test_machine_model_from_targets():
    cuda = machine_model(load_target("cuda-sm80"))
    assert cuda.async_queues == {0: "ASYNC0"} and cuda.issuers == ("T",)
    amd = machine_model(load_target("amd-gfx950"))
    assert amd.issuers == ("low", "high") and amd.lds_unit == "LDS" and "local" in amd.private_spaces
    assert machine_model(load_target("ascend-910a")).event_limit == 4


def test_parse_arg_values():
    assert parse_arg_values(["n=16", "%m=0x10", "s=0.5"]) == {"n": 16, "m": 16, "s": 0.5}
    for bad in (["n"], ["n=abc"], ["=3"]):
        with pytest.raises(TileschedError):
            parse_arg_values(bad)


def test_multi_issuer_targets_replicate_the_program():
    text = """
builtin.module {
  func.func @k(%g: memref<8x8xf16, "global">) {
    %r = memref.alloc() : memref<8x8xf16, "local">
    %l = memref.alloc() : memref<8x8xf16, "LDS">
    tile.load %g, %r : memref<8x8xf16, "global">, memref<8x8xf16, "local">
    tile.copy %r, %l : memref<8x8xf16, "local">, memref<8x8xf16, "LDS">
    sync.barrier local
    func.return
  }
}
"""
    trace = _lower(text, target=load_target("amd-gfx950"))
    low, high = trace.programs["low"], trace.programs["high"]
    assert len(low) == len(high) == 3 and high[0].issuer == "high"
    assert low[1].lds and low[1].unit == "LDS" and low[2].props == {"local": True}
    assert simulate(trace).ok
