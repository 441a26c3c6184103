"""Effects and dependence analysis: one test per rule (DESIGN.md §2, issue 2 item 5)."""

from __future__ import annotations

import pytest
from xdsl.dialects import scf

from tilesched.analysis import (
    RAW,
    UNKNOWN,
    WAR,
    WAW,
    block_dependences,
    disjoint,
    effects_of,
    loop_carried_dependences,
    root_region,
)
from tilesched.ir import parse_text
from tilesched.ir.affine import Affine, Mod

UB = 'memref<64x64xf32, "UB">'
T16 = 'memref<16x64xf32, "UB">'


def _func(body: str, args: str = "") -> list:
    text = f"""
func.func @k(%g: memref<64x64xf32, "GM">{args}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %u = memref.alloc() : {UB}
  %w = memref.alloc() : {UB}
  %m = memref.alloc() : memref<2x16x64xf32, "UB">
{body}
  func.return
}}"""
    module = parse_text(text, "t.mlir")
    func = next(iter(module.body.block.ops))
    return [op for op in func.body.block.ops if not op.name.startswith(("arith.", "memref.", "func."))]


def _loop(body: str, bounds: str = "%c0 to %c4 step %c1") -> scf.ForOp:
    (loop,) = [op for op in _func(f"  scf.for %i = {bounds} {{\n{body}\n  }}") if isinstance(op, scf.ForOp)]
    return loop


def _view(name: str, rows: str, of: str = "%u") -> str:
    return f"  %{name} = tile.view {of}[{rows}, %c0] {{sizes = array<i64: 16, 64>}} : {UB} -> {T16}"


# --- resolving operands to root buffer + region -------------------------------------------------

def test_view_resolves_to_root_and_offset_region():
    ops = _func(_view("v", "%c16") + f"\n  tile.exp %v, %v : {T16}, {T16}")
    region = root_region(ops[-1].operands[0])
    assert region.root.name_hint == "u"
    assert [d.start for d in region.dims] == [Affine(16), Affine(0)]
    assert [d.size for d in region.dims] == [16, 64]


def test_slot_then_view_composes_on_root_dimensions():
    body = """
  %s = tile.slot %m[%c1] : memref<2x16x64xf32, "UB"> -> memref<16x64xf32, "UB">
  %v = tile.view %s[%c2, %c16] {sizes = array<i64: 8, 32>} : memref<16x64xf32, "UB"> -> memref<8x32xf32, "UB">
  tile.exp %v, %v : memref<8x32xf32, "UB">, memref<8x32xf32, "UB">"""
    region = root_region(_func(body)[-1].operands[0])
    assert region.root.name_hint == "m"
    assert [(d.start, d.size) for d in region.dims] == [(Affine(1), 1), (Affine(2), 8), (Affine(16), 32)]


# --- read / write sets --------------------------------------------------------------------------

def test_tile_op_reads_all_but_last_and_writes_last():
    ops = _func(f"  tile.add %u, %w, %w : {UB}, {UB}, {UB}")
    eff = effects_of(ops[0])
    assert [a.region.root.name_hint for a in eff.reads] == ["u", "w"]
    assert [a.region.root.name_hint for a in eff.writes] == ["w"]


def test_matmul_accumulate_also_reads_its_output():
    body = """
  %a = memref.alloc() : memref<16x16xf16, "L0A">
  %b = memref.alloc() : memref<16x16xf16, "L0B">
  %c = memref.alloc() : memref<16x16xf32, "L0C">
  tile.matmul %a, %b, %c : memref<16x16xf16, "L0A">, memref<16x16xf16, "L0B">, memref<16x16xf32, "L0C">
  tile.matmul %a, %b, %c {accumulate} : memref<16x16xf16, "L0A">, memref<16x16xf16, "L0B">, memref<16x16xf32, "L0C">"""
    plain, acc = _func(body)
    assert len(effects_of(plain).reads) == 2
    assert [a.region.root.name_hint for a in effects_of(acc).reads] == ["a", "b", "c"]


def test_fill_reads_nothing():
    eff = effects_of(_func(f"  tile.fill %u {{value = 1.0 : f32}} : {UB}")[0])
    assert eff.reads == [] and len(eff.writes) == 1


def test_call_has_unknown_effects_and_conflicts_with_everything():
    ops = _func(f"""  tile.exp %w, %w : {UB}, {UB}
  tile.call {{callee = "opaque"}}
  tile.exp %u, %u : {UB}, {UB}""")
    assert effects_of(ops[1]).unknown
    deps = {(d.src, d.dst, d.kind) for d in block_dependences(ops)}
    assert (0, 1, UNKNOWN) in deps and (1, 2, UNKNOWN) in deps
    assert not any(d.src == 0 and d.dst == 2 for d in block_dependences(ops))


def test_sync_and_views_have_no_effects():
    ops = _func(_view("v", "%c0") + '\n  sync.barrier_all')
    assert all(not effects_of(op).accesses for op in ops)


# --- summaries for scf.for / scf.if -----------------------------------------------------------

def test_for_summary_is_the_hull_swept_by_the_induction_variable():
    body = """    %r = arith.muli %i, %c16 : index
""" + _view("v", "%r").replace("  %v", "    %v") + f"\n    tile.exp %v, %v : {T16}, {T16}"
    loop = _loop(body, "%c0 to %c2 step %c1")
    (write,) = effects_of(loop).writes  # rows [0, 16) and [16, 32)
    assert (write.region.dims[0].start, write.region.dims[0].size) == (Affine(0), 32)


def test_for_summary_keeps_loop_invariant_symbolic_offsets():
    body = _view("v", "%n").replace("  %v", "    %v") + f"\n    tile.exp %v, %v : {T16}, {T16}"
    ops = _func(f"  scf.for %i = %c0 to %c4 step %c1 {{\n{body}\n  }}", args=", %n: index")
    (write,) = effects_of(ops[0]).writes
    n = ops[0].parent_block().parent_op().body.block.args[1]
    assert write.region.dims[0].start == Affine.symbol(n) and write.region.dims[0].size == 16


def test_for_summary_widens_slot_indices_to_the_whole_dimension():
    body = """    %k = arith.remui %i, %c2 : index
    %s = tile.slot %m[%k] : memref<2x16x64xf32, "UB"> -> memref<16x64xf32, "UB">
    tile.fill %s {value = 0.0 : f32} : memref<16x64xf32, "UB">"""
    (write,) = effects_of(_loop(body)).writes
    assert (write.region.dims[0].start, write.region.dims[0].size) == (Affine(0), 2)


def test_if_summary_is_the_union_of_both_branches():
    ops = _func(f"""  %t = arith.cmpi eq, %c0, %c1 : index
  scf.if %t {{
    tile.exp %u, %u : {UB}, {UB}
  }} else {{
    tile.relu %w, %w : {UB}, {UB}
  }}""")
    eff = effects_of(ops[-1])
    assert sorted(a.region.root.name_hint for a in eff.writes) == ["u", "w"]


# --- edges in a block --------------------------------------------------------------------------

def test_raw_war_waw_edges():
    ops = _func(f"""  tile.exp %u, %w : {UB}, {UB}
  tile.relu %w, %u : {UB}, {UB}
  tile.neg %u, %w : {UB}, {UB}""")
    deps = {(d.src, d.dst, d.kind) for d in block_dependences(ops)}
    assert (0, 1, RAW) in deps      # w written then read
    assert (0, 1, WAR) in deps      # u read then written
    assert (0, 2, WAW) in deps      # w written twice
    assert (1, 2, RAW) in deps and (1, 2, WAR) in deps


def test_reads_commute():
    ops = _func(f"""  tile.exp %u, %w : {UB}, {UB}
  tile.relu %u, %g : {UB}, memref<64x64xf32, "GM">""".replace("tile.relu %u, %g", "tile.store %u, %g"))
    assert block_dependences(ops) == []


# --- disjointness proofs ---------------------------------------------------------------------

@pytest.mark.parametrize(("first", "second", "expected"), [
    ("%c0", "%c16", True),     # constant regions side by side
    ("%c0", "%c2", False),     # constant regions overlapping
])
def test_constant_region_disjointness(first, second, expected):
    ops = _func(_view("a", first) + "\n" + _view("b", second)
                + f"\n  tile.exp %a, %a : {T16}, {T16}\n  tile.exp %b, %b : {T16}, {T16}")
    assert disjoint(root_region(ops[-2].operands[0]), root_region(ops[-1].operands[0])) is expected


def test_affine_region_disjointness():
    body = """    %r = arith.muli %i, %c16 : index
    %r2 = arith.addi %r, %c16 : index
    %r3 = arith.addi %r, %c2 : index
""" + "\n".join(_view(n, o).replace("  %", "    %", 1) for n, o in (("a", "%r"), ("b", "%r2"), ("c", "%r3")))
    body += "".join(f"\n    tile.exp %{n}, %{n} : {T16}, {T16}" for n in "abc")
    loop = _loop(body)
    a, b, c = (root_region(op.operands[0]) for op in list(loop.body.block.ops)[-4:-1])
    assert disjoint(a, b)            # i*16 vs i*16+16, size 16
    assert not disjoint(a, c)        # i*16 vs i*16+2 overlap


def test_slot_disjointness_mod_n():
    body = """    %i1 = arith.addi %i, %c1 : index
    %k0 = arith.remui %i, %c2 : index
    %k1 = arith.remui %i1, %c2 : index
    %s0 = tile.slot %m[%k0] : memref<2x16x64xf32, "UB"> -> memref<16x64xf32, "UB">
    %s1 = tile.slot %m[%k1] : memref<2x16x64xf32, "UB"> -> memref<16x64xf32, "UB">
    tile.exp %s0, %s0 : memref<16x64xf32, "UB">, memref<16x64xf32, "UB">
    tile.relu %s1, %s1 : memref<16x64xf32, "UB">, memref<16x64xf32, "UB">"""
    loop = _loop(body)
    ops = list(loop.body.block.ops)
    r0, r1 = root_region(ops[-3].operands[0]), root_region(ops[-2].operands[0])
    assert isinstance(r0.dims[0].start, Mod) and r0.dims[0].start.modulus == 2
    assert disjoint(r0, r1)          # (i mod 2) vs ((i+1) mod 2) in the same iteration
    body_ops = [op for op in ops if op.name.startswith("tile.") and op.name not in ("tile.slot",)]
    assert len(body_ops) == 2
    assert block_dependences(body_ops) == []


# --- loop-carried dependences -----------------------------------------------------------------

def _carried(loop):
    ops = list(loop.body.block.ops)
    return {(ops[d.src].name, ops[d.dst].name, d.kind, d.distance) for d in loop_carried_dependences(loop)}


def test_loop_carried_distance_two():
    body = f"""    %r = arith.muli %i, %c16 : index
    %c32 = arith.constant 32 : index
    %p = arith.subi %r, %c32 : index
    %wv = tile.view %u[%r, %c0] {{sizes = array<i64: 16, 64>}} : {UB} -> {T16}
    %rv = tile.view %u[%p, %c0] {{sizes = array<i64: 16, 64>}} : {UB} -> {T16}
    tile.relu %rv, %rv : {T16}, {T16}
    tile.fill %wv {{value = 0.0 : f32}} : {T16}"""
    carried = _carried(_loop(body, "%c2 to %c8 step %c1"))
    # the fill writes rows [16i, 16i+16); the relu reads rows [16i-32, 16i-16): written 2 iterations earlier
    assert ("tile.fill", "tile.relu", RAW, 2) in carried
    assert not any(src == "tile.fill" and dst == "tile.relu" and dist == 1 for src, dst, _, dist in carried)


def test_loop_carried_distance_is_bounded_by_the_trip_count():
    body = f"""    %r = arith.muli %i, %c16 : index
    %c32 = arith.constant 32 : index
    %p = arith.subi %r, %c32 : index
    %wv = tile.view %u[%r, %c0] {{sizes = array<i64: 16, 64>}} : {UB} -> {T16}
    %rv = tile.view %u[%p, %c0] {{sizes = array<i64: 16, 64>}} : {UB} -> {T16}
    tile.relu %rv, %rv : {T16}, {T16}
    tile.fill %wv {{value = 0.0 : f32}} : {T16}"""
    carried = _carried(_loop(body, "%c2 to %c4 step %c1"))  # two trips: only distance 1 exists
    assert not any(src == "tile.fill" and dst == "tile.relu" for src, dst, _, _ in carried)


def test_loop_carried_slots_distance_one_and_single_trip_loops_have_none():
    slot = 'memref<16x64xf32, "UB">'
    body = f"""    %i1 = arith.addi %i, %c1 : index
    %k0 = arith.remui %i, %c2 : index
    %k1 = arith.remui %i1, %c2 : index
    %s0 = tile.slot %m[%k0] : memref<2x16x64xf32, "UB"> -> {slot}
    %s1 = tile.slot %m[%k1] : memref<2x16x64xf32, "UB"> -> {slot}
    tile.fill %s1 {{value = 0.0 : f32}} : {slot}
    tile.relu %s0, %s0 : {slot}, {slot}"""
    carried = _carried(_loop(body))
    # fill writes slot (i+1)%2, which iteration i+1 reads as slot i%2: RAW at distance 1
    assert ("tile.fill", "tile.relu", RAW, 1) in carried
    # relu writes slot i%2, which the fill of iteration i+1 overwrites: WAW at distance 1
    assert ("tile.relu", "tile.fill", WAW, 1) in carried
    assert _carried(_loop(body, "%c0 to %c1 step %c1")) == set()


def test_loop_carried_waw_on_a_loop_invariant_buffer():
    loop = _loop(f"    tile.exp %u, %w : {UB}, {UB}")
    assert ("tile.exp", "tile.exp", WAW, 1) in _carried(loop)
    assert ("tile.exp", "tile.exp", RAW, 1) not in _carried(loop)


def test_loop_carried_dependences_with_symbolic_bounds_and_steps():
    ops = _func(f"  scf.for %i = %c0 to %n step %s {{\n    tile.exp %u, %w : {UB}, {UB}\n  }}",
                args=", %n: index, %s: index")
    assert ("tile.exp", "tile.exp", WAW, 1) in _carried(ops[0])
