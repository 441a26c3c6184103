"""The op-semantics table of fuse-tiles: classes and iteration domains."""

from __future__ import annotations

import pytest

from tilesched.analysis.fusion_semantics import (
    COMPUTE,
    HARD_BOUNDARY,
    LOCAL_BOUNDARY,
    MOVABLE,
    PURE,
    is_unknown,
    op_semantics,
)
from tilesched.ir import parse_text

U = 'memref<16x32xf32, "UB">'
ROW = 'memref<16x1xf32, "UB">'
KERNEL = f"""
func.func @k(%g: memref<16x32xf32, "GM">, %d: memref<?x32xf32, "UB">, %n: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1.0 : f32
  %a = memref.alloc() : {U}
  %b = memref.alloc() : {U}
  %r = memref.alloc() : {ROW}
  %w = memref.alloc() : memref<32x16xf32, "UB">
  %v = tile.view %a[%c0, %c0] {{sizes = array<i64: 16, 32>}} : {U} -> {U}
  tile.load %g, %a : memref<16x32xf32, "GM">, {U}
  tile.add %a, %b, %b : {U}, {U}, {U}
  tile.muls %a, %c1, %b : {U}, f32, {U}
  tile.exp %a, %b : {U}, {U}
  tile.rowsum %a, %r : {U}, {ROW}
  tile.rowexpand_div %a, %r, %b : {U}, {ROW}, {U}
  tile.fill %r {{value = 0.0 : f32}} : {ROW}
  tile.reshape %a, %w : {U}, memref<32x16xf32, "UB">
  tile.exp %d, %d : memref<?x32xf32, "UB">, memref<?x32xf32, "UB">
  tile.call %a {{callee = "f"}} : {U}
  sync.barrier_all
  scf.for %i = %c0 to %n step %c0 {{
  }}
  "memref.copy"(%a, %b) : ({U}, {U}) -> ()
  func.return
}}
"""

EXPECTED = [
    ("arith.constant", PURE, None), ("arith.constant", PURE, None),
    ("memref.alloc", PURE, None), ("memref.alloc", PURE, None), ("memref.alloc", PURE, None),
    ("memref.alloc", PURE, None), ("tile.view", PURE, None),
    ("tile.load", MOVABLE, None),
    ("tile.add", COMPUTE, (16, 32)), ("tile.muls", COMPUTE, (16, 32)),
    ("tile.exp", COMPUTE, (16, 32)),
    ("tile.rowsum", COMPUTE, (16, 32)),  # a reduction iterates over its input's domain
    ("tile.rowexpand_div", COMPUTE, (16, 32)),
    ("tile.fill", COMPUTE, (16, 1)),
    ("tile.reshape", LOCAL_BOUNDARY, None),
    ("tile.exp", COMPUTE, None),  # dynamic shape: no domain, not fusible
    ("tile.call", HARD_BOUNDARY, None), ("sync.barrier_all", HARD_BOUNDARY, None),
    ("scf.for", HARD_BOUNDARY, None), ("memref.copy", HARD_BOUNDARY, None),
]


@pytest.fixture(scope="module")
def ops():
    module = parse_text(KERNEL, "k.mlir")  # not verified: the dynamic shape is for the table
    return list(module.ops.first.body.block.ops)[:-1]


def test_every_op_has_its_class_and_domain(ops):
    assert [(op.name, op_semantics(op).kind, op_semantics(op).domain) for op in ops] == EXPECTED
    fusible = [op.name for op in ops if op_semantics(op).fusible]
    assert fusible == ["tile.add", "tile.muls", "tile.exp", "tile.rowsum", "tile.rowexpand_div",
                       "tile.fill"]


def test_unknown_ops_are_hard_boundaries_with_a_reason(ops):
    copy = ops[-1]
    assert is_unknown(copy) and "memref.copy" in op_semantics(copy).reason
    assert not any(is_unknown(op) for op in ops[:-1])
