"""The Python DSL (tilesched.ir.dsl): every op, loops, conditionals, index math, and its errors."""

from __future__ import annotations

import pathlib
import re
import sys

import pytest
from xdsl.dialects import arith, scf

from tilesched.diagnostics import TileschedError
from tilesched.ir import parse_text, print_module, verify_module
from tilesched.ir.affine import Affine, Mod, index_expr
from tilesched.ir.dsl import Buffer, Index, Kernel, Module, render
from tilesched.ir.sync import SYNC_OPS
from tilesched.ir.tile import TILE_OPS
from tilesched.target.loader import load_target


def _round_trips(module) -> str:
    """Assert print -> parse -> print is stable in both syntaxes; return the custom text."""
    text = print_module(module)
    assert print_module(parse_text(text)) == text
    generic = print_module(module, generic=True)
    assert print_module(parse_text(generic), generic=True) == generic
    assert print_module(parse_text(generic)) == text
    return text


def _op_names(module) -> set[str]:
    return {op.name for op in module.walk()}


def _ascend_vector_kernel() -> Kernel:
    """A kernel using every tile op, on spaces ascend-a2 can route."""
    k = Kernel("every_tile_op", target="ascend-a2")
    g = k.arg("g", (64, 64), "f16", "GM")
    w = k.arg("w", (64, 64), "f16", "GM")
    out = k.arg("out", (64, 64), "f32", "GM")
    alpha = k.scalar_arg("alpha", "f16")
    a, b, d = (k.alloc((64, 64), "f16", "UB", name=n) for n in ("a", "b", "d"))
    row = k.alloc((64, 1), "f16", "UB", name="row")
    flat = k.alloc((32, 128), "f16", "UB", name="flat")
    f32 = k.alloc((64, 64), "f32", "UB", name="f32")
    l1, l0a, l0b = (k.alloc((64, 64), "f16", s) for s in ("L1", "L0A", "L0B"))
    l0c = k.alloc((64, 64), "f32", "L0C", name="l0c")
    k.load(g, a, pipe="MTE2", latency=10)
    k.load(w, l1)
    k.copy(l1, l0a)
    k.copy(l1, l0b)
    k.matmul(l0a, l0b, l0c)
    k.matmul(l0a, l0b, l0c, accumulate=True)
    k.store(l0c, out)
    for op in (k.add, k.sub, k.mul, k.div, k.max, k.min):
        op(a, b, d)
    k.adds(a, 1.5, d)
    k.subs(a, alpha, d)
    k.muls(a, alpha, d)
    k.maxs(a, 0, d)
    for op in (k.exp, k.neg, k.abs, k.relu, k.rsqrt):
        op(a, d)
    k.cast(a, f32)
    k.rowsum(a, row)
    k.rowmax(a, row)
    for op in (k.rowexpand_sub, k.rowexpand_mul, k.rowexpand_div):
        op(a, row, d)
    k.fill(d, 0.0)
    k.fill(d, alpha)  # tile.fills
    k.reshape(d, flat)
    k.call("opaque_helper", a, d)
    k.stage_border("end", priority=2)
    k.store(d, g)
    return k


def test_every_tile_op_verifies_on_ascend_and_round_trips():
    k = _ascend_vector_kernel()
    module = k.module()
    tile_names = {op.name for op in TILE_OPS}
    assert tile_names - {"tile.view", "tile.slot"} <= _op_names(module)
    text = _round_trips(module)
    assert 'tile.load %g, %a {pipe = "MTE2", latency = 10 : i64}' in text
    assert "tile.matmul %1, %2, %l0c {accumulate}" in text
    assert "tile.muls %a, %alpha, %d" in text
    assert 'tile.call %a, %d {callee = "opaque_helper"}' in text
    assert "arith.constant 1.500000e+00 : f16" in text
    assert "arith.constant 0.000000e+00 : f16" in text


def _sync_kernel(target: str) -> Kernel:
    """A kernel with the sync ops of ``target``'s family (plus sched_barrier)."""
    k = Kernel(f"sync_{target.replace('-', '_')}", target=target)
    family = load_target(target).sync
    if load_target(target).cores:
        k.set_flag("AIV0.MTE2", "AIV0.V", 0)
        k.wait_flag("AIV0.MTE2", "AIV0.V", 0)
        k.cross_set("AIC", "AIV0", 15, unit="FIX")
        k.cross_wait("AIC", "AIV0", 15)
        for i in k.range(3, name="i"):
            ident = i % 2 + 4
            k.cross_set("AIV0", "AIC", ident.named("id"), unit="MTE3")
            k.cross_wait("AIV0", "AIC", ident)
    elif family == "flags":
        k.set_flag("MTE2", "V", 0)
        k.wait_flag("MTE2", "V", 0)
        for i in k.range(3, name="i"):
            ev = (i + 1) % 2 + 4
            k.set_flag("MTE2", "V", ev.named("ev"))
            k.wait_flag("MTE2", "V", ev)
        k.pipe_barrier("V")
        k.barrier_all()
    elif family == "groups":
        k.commit_group(0)
        k.wait_group(0, pending=1)
        for i in k.range(3, name="i"):
            k.wait_group(0, pending=i)
    else:
        k.barrier()
        k.barrier(local=True)
        k.cond_barrier("high")
        k.cond_barrier("low", local=True)
        k.setprio(1)
    k.sched_barrier()
    return k


@pytest.mark.parametrize("target", ["ascend-a2", "cuda-sm80", "amd-gfx950", "ascend-a2-mix"])
def test_sync_ops_verify_on_their_target(target):
    _round_trips(_sync_kernel(target).module())


def test_every_sync_op_is_covered():
    names = set()
    for target in ("ascend-a2", "cuda-sm80", "amd-gfx950", "ascend-a2-mix"):
        names |= _op_names(_sync_kernel(target).module())
    assert {op.name for op in SYNC_OPS} <= names


def test_sync_op_syntax():
    text = _sync_kernel("cuda-sm80").text() + _sync_kernel("amd-gfx950").text()
    assert "sync.wait_group 0 {pending = 1 : i64}" in text
    assert "sync.wait_group 0, %i" in text
    assert "sync.barrier local" in text
    assert 'sync.cond_barrier "low" local' in text
    assert 'sync.set_flag "MTE2" -> "V", 0' in _sync_kernel("ascend-a2").text()
    assert 'sync.wait_flag "MTE2" -> "V", %ev' in _sync_kernel("ascend-a2").text()
    mix = _sync_kernel("ascend-a2-mix").text()
    assert 'sync.cross_set "AIC" -> "AIV0", 15 after "FIX"' in mix
    assert 'sync.cross_wait "AIV0" -> "AIC", %id' in mix
    assert 'sync.set_flag "AIV0.MTE2" -> "AIV0.V", 0' in mix


def test_a_cross_core_id_operand_over_the_limit_is_reported_at_the_callers_line():
    k = Kernel("k", target="ascend-a2-mix")
    for i in k.range(4, name="i"):
        k.cross_set("AIC", "AIV0", i % 4 + 13, unit="FIX")
    with pytest.raises(TileschedError, match=r"test_dsl.py:\d+:\d+: error: .*can be 16 \(it "
                       r"takes 13\.\.16\), but target 'ascend-a2-mix' has 16 cross-core flag ids"):
        k.module()


def test_core_annotation_routes_and_is_checked():
    k = Kernel("k", target="ascend-a2-mix")
    g = k.arg("g", (16, 16), "f16", "GM")
    ub = k.alloc((16, 16), "f16", "UB", name="ub")
    k.load(g, ub, core="AIC")
    with pytest.raises(TileschedError, match=r"test_dsl.py:\d+:\d+: error: 'tile.load' core "
                       r"\"AIC\" does not own space \"UB\""):
        k.module()


def test_an_event_id_operand_out_of_range_is_reported_at_the_callers_line():
    k = Kernel("k", target="ascend-a2")
    for i in k.range(4, name="i"):
        k.set_flag("MTE2", "V", i % 2 + 7)
    with pytest.raises(TileschedError, match=r"test_dsl.py:\d+:\d+: error: .*event id .* can be 8 \(it takes 7\.\.8\)"):
        k.module()


def test_views_slots_and_multi_buffer_indices():
    k = Kernel("slots", target="ascend-a2")
    x = k.arg("x", (256, 128), "f16", "GM")
    buf = k.alloc((2, 64, 128), "f16", "UB", name="buf")
    for i in k.range(4, name="i", async_stages=[0]):
        cur = buf.slot(i % 2, name="cur")
        nxt = buf.slot((i + 1) % 2, name="nxt")
        k.load(x.block((64, 128), (i, 0), name="blk"), cur, stage=0, order=0)
        k.exp(cur, nxt, stage=1, order=1, async_=True)
    text = _round_trips(k.module())
    assert "%cur = tile.slot %buf[%0]" in text
    assert "{tile.async_stages = [0 : i64]}" in text
    assert "{tile.stage = 1 : i64, tile.order = 1 : i64, tile.async}" in text
    slots = [op for op in k.module().walk() if op.name == "tile.slot"]
    first, second = (index_expr(op.operands[1]) for op in slots)
    assert isinstance(first, Mod) and isinstance(second, Mod)
    assert first.modulus == second.modulus == 2
    assert second.base.const - first.base.const == 1


def test_index_arithmetic_folds_constants_and_identities():
    k = Kernel("math")
    n = k.index_arg("n")
    assert (k.const(6) * 7).constant == 42
    assert (2 + k.const(3) - 1).constant == 4
    assert (k.const(-7) % 3).constant == -1  # arith.remsi keeps the dividend's sign
    assert (k.const(7) // 2).constant == 3
    assert n + 0 is n and n * 1 is n and 1 * n is n
    assert (n * 0).constant == 0
    expr = index_expr(((n * 4 + 3 - n) * 2).value)
    assert expr == Affine(6, ((n.value, 6),))
    assert isinstance(index_expr((n // 2).value), type(None))
    text = k.text()
    for op in ("arith.muli", "arith.addi", "arith.subi", "arith.floordivsi"):
        assert op in text


def test_constants_are_hoisted_and_shared():
    k = Kernel("consts")
    x = k.arg("x", (4, 8), "f32", "UB")
    for i in k.range(2, name="i"):
        k.adds(x.view((0, i * 4), (4, 4)), 0.5, x.view((0, 4), (4, 4)))
        k.adds(x.view((0, 0), (4, 4)), 0.5, x.view((0, 4), (4, 4)))
    body = list(k.module().body.block.first_op.body.block.ops)
    constants = [op for op in body if isinstance(op, arith.ConstantOp)]
    assert body[: len(constants)] == constants
    values = [str(op.value) for op in constants]
    assert len(values) == len(set(values))


def test_loop_with_index_argument_bounds_and_nesting():
    k = Kernel("nest")
    n = k.index_arg("n")
    x = k.arg("x", (64, 64), "f32", "UB")
    for i in k.range(1, n, 2, name="i"):
        for j in k.range(i, 4, name="j", stage=1):
            k.relu(x.view((i, j), (8, 8)), x.view((0, 0), (8, 8)))
    text = _round_trips(k.module())
    assert "scf.for %i = %c1 to %n step %c2 {" in text
    assert "scf.for %j = %i to %c4 step %c1 {" in text
    assert "} {tile.stage = 1 : i64}" in text


def test_if_else_and_condition_logic():
    k = Kernel("branches", target="ascend-a2")
    x = k.arg("x", (8, 8), "f32", "UB")
    for i in k.range(8, name="i"):
        with k.if_((i == 0) | ((i >= 4) & ~(i != 6)), stage=0):
            k.fill(x, 1.0)
        with k.else_():
            k.neg(x, x.view((0, 0), (8, 8)))
        with k.if_(k.cmp("ult", i, 3)):
            k.barrier_all()
    module = k.module()
    text = _round_trips(module)
    assert "} else {" in text
    assert "arith.cmpi ult" in text
    ifs = [op for op in module.walk() if isinstance(op, scf.IfOp)]
    assert len(ifs) == 2 and ifs[0].false_region.blocks and not ifs[1].false_region.blocks
    for op in ("arith.ori", "arith.andi", "arith.xori", "arith.constant true"):
        assert op in text


def test_stage_context_sets_default_stage():
    k = Kernel("staged")
    x = k.arg("x", (8, 8), "f32", "UB")
    with k.stage(2):
        k.exp(x, x.view((0, 0), (8, 8)))
        k.exp(x, x.view((0, 0), (8, 8)), stage=0)
    k.exp(x, x.view((0, 0), (8, 8)))
    stages = [op.attributes.get("tile.stage") for op in k.module().walk() if op.name == "tile.exp"]
    assert [s.value.data if s is not None else None for s in stages] == [2, 0, None]


def test_module_with_several_kernels():
    module = Module("cuda-sm80")
    for name in ("first", "second"):
        k = module.kernel(name)
        k.fill(k.arg("x", (16, 16), "f32", "local"), 0.0)
    text = module.text()
    assert text.count("func.func") == 2 and "@second" in text
    _round_trips(module.build())


def test_render_prefixes_comment_lines():
    k = Kernel("tiny")
    k.fill(k.arg("x", (2, 2), "f16", "UB"), 0.0)
    text = render(k.module(), "Title.\n\n  indented\n")
    assert text.startswith("// Title.\n//\n//   indented\nbuiltin.module {")
    assert print_module(parse_text(text)) == print_module(k.module())


def test_documented_example_prints_the_documented_ir(capsys):
    doc = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "dsl.md").read_text()
    code = re.search(r"```python\n(.*?)```", doc, re.S).group(1)
    expected = re.search(r"```mlir\n(.*?)```", doc, re.S).group(1)
    exec(compile(code, "docs/dsl.md", "exec"), {})
    assert capsys.readouterr().out.rstrip("\n") + "\n" == expected


def test_values_have_readable_repr():
    k = Kernel("names")
    x = k.arg("x", (2, 2), "f16", "UB")
    assert isinstance(x, Buffer) and repr(x) == 'buffer %x : memref<2x2xf16, "UB">'
    for i in k.range(2, name="i"):
        assert isinstance(i, Index) and repr(i) == "loop variable %i : index"
    assert x.shape == (2, 2) and x.space == "UB" and str(x.dtype) == "f16"


# --- errors --------------------------------------------------------------------------------


def _error(action) -> TileschedError:
    """Run ``action`` and return the TileschedError it raises."""
    with pytest.raises(TileschedError) as info:
        action()
    return info.value


def _kernel() -> tuple[Kernel, Buffer, Buffer, Buffer]:
    k = Kernel("bad", target="ascend-a2")
    a = k.arg("a", (128, 64), "f16", "L0A")
    b = k.arg("b", (32, 128), "f16", "L0B")
    c = k.arg("c", (128, 128), "f32", "L0C")
    return k, a, b, c


def test_error_is_located_at_the_callers_line():
    k, a, b, c = _kernel()
    line = sys._getframe().f_lineno + 1
    err = _error(lambda: k.matmul(a, b, c))
    assert err.loc.file == __file__ and err.loc.line == line
    assert "'tile.matmul' shapes do not match: a 128x64, b 32x128" in err.message


def test_target_errors_from_module_point_at_the_python_line():
    k = Kernel("routes", target="ascend-a2")
    g = k.arg("g", (8, 8), "f32", "GM")
    line = sys._getframe().f_lineno + 1
    k.fill(g, 0.0)
    err = _error(k.module)
    assert err.loc.file == __file__ and err.loc.line == line
    assert "no unit of target 'ascend-a2' runs 'tile.fill'" in err.message


@pytest.mark.parametrize("action, message", [
    (lambda k, a, b, c: k.alloc((4, 4), "f17", "UB"), "unknown dtype 'f17'"),
    (lambda k, a, b, c: k.alloc((4, 0), "f16", "UB"), "non-empty tuple of positive ints"),
    (lambda k, a, b, c: k.alloc((4, 4), "f16", ""), "memory space must be a non-empty string"),
    (lambda k, a, b, c: a.view((0, 0), (256, 64)), "view size 256 in dim 0"),
    (lambda k, a, b, c: a.view((0, 32), (128, 64)), "view [32, 96) in dim 1 is out of bounds"),
    (lambda k, a, b, c: a.view((0,), (128,)), "needs 2 offsets and sizes"),
    (lambda k, a, b, c: a.view((0, 0.5), (1, 1)), "must be an int or an index value"),
    (lambda k, a, b, c: a.block((64,), (0, 0)), "one index per size"),
    (lambda k, a, b, c: a.slot(128), "slot 128 is out of range"),
    (lambda k, a, b, c: k.alloc((4,), "f16", "UB").slot(0), "leading slot dimension"),
    (lambda k, a, b, c: k.load(a, 3), "'tile.load' operand 2 must be a buffer"),
    (lambda k, a, b, c: k.rowsum(c, c), "'tile.rowsum' needs a 2-d input MxN and a Mx1 output"),
    (lambda k, a, b, c: k.exp(a, b), "'tile.exp' operands must have the same shape"),
    (lambda k, a, b, c: k.fill(c, 0.0, foo=1), "unknown option(s) foo"),
    (lambda k, a, b, c: k.fill(c, "zero"), "does not fit element type f32"),
    (lambda k, a, b, c: k.exp(a, a, stage=-1), "tile.stage must be a non-negative int"),
    (lambda k, a, b, c: k.exp(a, a, latency=-3), "latency must be a non-negative int"),
    (lambda k, a, b, c: k.exp(a, a, pipe=""), "pipe must be a unit name"),
    (lambda k, a, b, c: k.muls(a, "x", a), "scalar must be a number, Scalar or Index"),
    (lambda k, a, b, c: k.set_flag("MTE2", "V", -1), "event must be a non-negative int"),
    (lambda k, a, b, c: k.set_flag("V", "V", 0), "needs two different units"),
    (lambda k, a, b, c: k.cond_barrier("middle"), 'group must be "high" or "low"'),
    (lambda k, a, b, c: k.wait_group(0, pending=-1), "pending must be a non-negative int"),
    (lambda k, a, b, c: k.stage_border(""), "non-empty label"),
    (lambda k, a, b, c: k.call("", a), "callee must be a non-empty string"),
    (lambda k, a, b, c: k.else_().__enter__(), "else_() must directly follow"),
    (lambda k, a, b, c: k.if_(True).__enter__(), "if_() needs a condition"),
    (lambda k, a, b, c: next(iter(k.range(0, 4, 0))), "loop step must be positive"),
    (lambda k, a, b, c: next(iter(k.range(0, 4, async_stages=[-1]))), "async_stages must be"),
    (lambda k, a, b, c: k.const(1) % 0, "positive Python int on the right"),
    (lambda k, a, b, c: k.const(1) * a, "must be an int or an index value"),
    (lambda k, a, b, c: k.cmp("bigger", 1, 2), "unknown comparison 'bigger'"),
    (lambda k, a, b, c: k.arg("a", (1, 1), "f16", "GM"), "already has an argument named 'a'"),
    (lambda k, a, b, c: k.alloc((1, 1), "f16", "UB", name="1x"), "not a valid value name"),
    (lambda k, a, b, c: k.scalar(0.5, "i32"), "cannot make a i32 constant"),
    (lambda k, a, b, c: Kernel("9lives"), "kernel name must be an identifier"),
    (lambda k, a, b, c: Kernel("x", target="no-such-target"), "unknown target 'no-such-target'"),
    (lambda k, a, b, c: Module("ascend-a2").kernel("x").name and Kernel("y", "cuda-sm80", Module()),
     "give the target to the Module"),
])
def test_dsl_misuse_raises_located_errors(action, message):
    k, a, b, c = _kernel()
    err = _error(lambda: action(k, a, b, c))
    assert message in err.message
    assert err.loc is None or err.loc.file in (__file__, load_target.__code__.co_filename)


def test_python_control_flow_on_ir_values_is_rejected():
    k, a, b, c = _kernel()
    for i in k.range(4, name="i"):
        err = _error(lambda cond=i == 0: bool(cond))
        assert "use k.if_(...)" in err.message


def test_loop_variable_out_of_scope():
    k, a, b, c = _kernel()
    escaped = [i for i in k.range(4, name="i")]
    err = _error(lambda: a.view((escaped[0], 0), (64, 64)))
    assert "loop variable %i : index is used outside the loop" in err.message
    with k.if_(k.const(0) == 0):
        inner = k.alloc((2, 2), "f16", "UB", name="inner")
    err = _error(lambda: k.exp(inner, inner))
    assert "buffer %inner" in err.message and "outside the loop or branch" in err.message


def test_values_of_another_kernel_are_rejected():
    k, a, b, c = _kernel()
    other = Kernel("other")
    err = _error(lambda: a.view((other.const(0), 0), (1, 1)))
    assert "belongs to kernel 'other', not 'bad'" in err.message


def test_break_out_of_a_loop_restores_the_insertion_point():
    k = Kernel("brk")
    x = k.arg("x", (2, 2), "f16", "UB")
    for _ in k.range(4):
        k.exp(x, x)
        break
    k.neg(x, x)
    func_body = list(k.module().body.block.first_op.body.block.ops)
    assert [op.name for op in func_body][-3:] == ["scf.for", "tile.neg", "func.return"]


def test_structural_verification_runs_without_a_target():
    k = Kernel("no_target")
    k.fill(k.arg("x", (2, 2), "f16", "nowhere"), 0.0)
    verify_module(k.module())  # spaces are only checked against a target
    err = _error(lambda: verify_module(k.module(), load_target("ascend-a2")))
    assert 'unknown memory space "nowhere"' in err.message


def test_a_view_with_a_valid_region_prints_and_verifies():
    """``buf.view(..., valid=...)``: run-time and constant extents, checked by the verifier."""
    k = Kernel("v", target="ascend-a2")
    a, b = k.arg("a", (32, 32), "f32", "UB"), k.arg("b", (32, 32), "f32", "UB")
    rows = k.index_arg("vr")
    k.exp(a.view((0, 0), (32, 32), valid=(rows, 16), name="va"),
          b.view((0, 0), (32, 32), valid=(rows, 16), name="vb"))
    text = k.text()
    assert "tile.view %a[%c0, %c0] valid [%vr, %c16]" in text
    verify_module(parse_text(text, "v.mlir"), load_target("ascend-a2"))
    bad = Kernel("w", target="ascend-a2")
    x = bad.arg("x", (32, 32), "f32", "UB")
    with pytest.raises(TileschedError, match="valid extent 40 in dim 0 is outside 0..32"):
        x.view((0, 0), (32, 32), valid=(40, 16))
