"""Issue 11 §1: hostile and mistaken inputs end in a message and exit 2, never a traceback.

Each case is one an early user hit; the brackets of the issue are the assertions. (Output files:
test_cli.py; the parser: tests/ir/test_text.py; targets: tests/target; the verifier's new
checks: tests/lit/verify.)
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from tilesched.cli import main
from tilesched.diagnostics import TileschedError
from tilesched.sim.functional import DEFAULT_MAX_BYTES, Memory
from tilesched.sim.lowering.lower import lower_module
from tilesched.target import load_target
from tilesched.transforms.pass_base import option_specs
from tilesched.transforms.registry import available_passes, parse_pass_pipeline

GM = 'memref<16x16xf32, "GM">'
UB = 'memref<16x16xf32, "UB">'


def kernel(tmp_path, body: str, args: str = f"%a: {GM}, %u: {UB}", name: str = "k.mlir") -> str:
    path = tmp_path / name
    path.write_text(f"func.func @k({args}) {{\n{body}\n  func.return\n}}\n")
    return str(path)


def run(argv, capsys) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.err


def nested(depth: int) -> str:
    lines = ["  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index"]
    lines += [f"  scf.for %i{d} = %c0 to %c1 step %c1 {{" for d in range(depth)]
    lines += [f"  tile.load %a, %u : {GM}, {UB}"]
    return "\n".join(lines + ["  }"] * depth)


@pytest.mark.parametrize("depth", [200, 1000])
@pytest.mark.parametrize("command", [["opt"], ["sim"], ["equiv", "{f}"]])
def test_deep_loop_nesting_is_refused_with_a_location(tmp_path, capsys, depth, command):
    path = kernel(tmp_path, nested(depth))
    code, err = run([command[0], path, *(a.format(f=path) for a in command[1:])], capsys)
    assert code == 2
    assert re.search(r"k\.mlir:\d+:\d+: error: ops nested deeper than 100 levels", err)


@pytest.mark.parametrize("command", [["opt", "-p", "modulo-schedule,software-pipeline,insert-sync"],
                                     ["sim"], ["equiv", "{f}"]])
def test_nesting_just_under_the_limit_runs_everywhere(tmp_path, capsys, command):
    path = kernel(tmp_path, nested(98))  # func + 98 loops + the load = 100 levels
    code, err = run([command[0], path, *(a.format(f=path) for a in command[1:])], capsys)
    assert code in (0, 1) and "error" not in err


def test_equiv_seed_must_be_non_negative(tmp_path, capsys):
    path = kernel(tmp_path, f"  tile.load %a, %u : {GM}, {UB}")
    with pytest.raises(SystemExit) as info:
        main(["equiv", path, path, "--seed", "-1"])
    assert info.value.code == 2
    assert "argument --seed: must be >= 0, got -1" in capsys.readouterr().err


def test_rank_0_buffers_are_simulated(tmp_path, capsys):
    path = kernel(tmp_path, '  tile.load %a, %u : memref<f32, "GM">, memref<f32, "UB">',
                  args='%a: memref<f32, "GM">, %u: memref<f32, "UB">')
    code, err = run(["equiv", path, path], capsys)
    assert code == 0 and err == ""
    code, _ = run(["sim", path], capsys)
    assert code == 0


def test_buffers_over_max_bytes_are_refused_before_allocating(tmp_path, capsys):
    huge = 'memref<100000x100000xf32, "GM">'
    path = kernel(tmp_path, "  %c0 = arith.constant 0 : index\n"
                  f"  %v = tile.view %a[%c0, %c0] {{sizes = array<i64: 16, 16>}} : {huge} -> {GM}\n"
                  f"  tile.load %v, %u : {GM}, {UB}", args=f"%a: {huge}, %u: {UB}")
    code, err = run(["equiv", path, path], capsys)
    assert code == 2
    assert ("the program's buffers need 37.3 GiB of data, more than the limit of 1.0 GiB "
            "(--max-bytes); the largest is argument %a (100000x100000 float32, 37.3 GiB)") in err
    code, err = run(["equiv", path, path, "--max-bytes", "2K"], capsys)
    assert code == 2 and "more than the limit of 2.0 KiB" in err
    with pytest.raises(SystemExit):
        main(["equiv", path, path, "--max-bytes", "lots"])
    assert "expected a size such as 512M or 4G, got 'lots'" in capsys.readouterr().err


def test_an_astronomical_buffer_size_is_written_short(tmp_path, capsys):
    huge = 'memref<1000000000000x1000000000000xf32, "GM">'
    path = kernel(tmp_path, "  %c0 = arith.constant 0 : index\n"
                  f"  %v = tile.view %a[%c0, %c0] {{sizes = array<i64: 16, 16>}} : {huge} -> {GM}\n"
                  f"  tile.load %v, %u : {GM}, {UB}", args=f"%a: {huge}, %u: {UB}")
    code, err = run(["equiv", path, path], capsys)
    assert code == 2 and "the program's buffers need 3.64e+12 TiB of data" in err


def test_buffers_are_allocated_in_their_declared_type(tmp_path):
    from tilesched.ir import parse_file

    path = kernel(tmp_path, "", args='%a: memref<64x64xf32, "GM">, %b: memref<64xf16, "GM">, '
                                     '%c: memref<8xi8, "GM">, %d: memref<4xbf16, "GM">')
    trace = lower_module(parse_file(path), load_target("ascend-a2"))
    arrays = [a for _, a in Memory(trace).arguments()]
    assert [a.dtype for a in arrays] == [np.float32, np.float16, np.int8, np.float32]
    assert arrays[0].nbytes == 64 * 64 * 4
    assert DEFAULT_MAX_BYTES == 1 << 30


def test_equiv_of_programs_with_different_signatures_is_bad_input(tmp_path, capsys):
    a = kernel(tmp_path, f"  tile.load %a, %u : {GM}, {UB}", name="a.mlir")
    b = kernel(tmp_path, '  tile.load %a, %u : memref<16x8xf32, "GM">, memref<16x8xf32, "UB">',
               args='%a: memref<16x8xf32, "GM">, %u: memref<16x8xf32, "UB">', name="b.mlir")
    code, err = run(["equiv", a, b], capsys)
    assert code == 2
    assert "cannot be compared: buffer argument 0 is %a: float32[16, 16] in A but %a: float32[16, 8] in B" in err
    c = kernel(tmp_path, "", args=f"%a: {GM}", name="c.mlir")
    code, err = run(["equiv", a, c], capsys)
    assert code == 2 and "A takes 2 buffer arguments and B takes 1" in err


@pytest.mark.parametrize(("pipeline", "message"), [
    ("modulo-schedule{num_stages=-3}", "num-stages must be >= 1, got -3"),
    ("modulo-schedule{num_stages=100000}", "num-stages must be <= 64, got 100000"),
    ("modulo-schedule{max_ii=0}", "max-ii must be >= 1, got 0"),
])
def test_pass_options_out_of_range_exit_2(tmp_path, capsys, pipeline, message):
    path = kernel(tmp_path, f"  tile.load %a, %u : {GM}, {UB}")
    code, err = run(["opt", path, "-p", pipeline], capsys)
    assert code == 2 and message in err


def test_every_pass_option_declares_its_domain_and_the_parser_enforces_it():
    for name, cls in available_passes().items():
        specs = option_specs(cls)
        assert set(specs) == {f.name for f in dataclasses.fields(cls)}, name
        for option, spec in specs.items():
            default = getattr(cls, option)
            if isinstance(default, bool):
                continue
            if isinstance(default, str):
                assert spec.choices, (name, option)
                with pytest.raises(TileschedError, match="must be one of"):
                    parse_pass_pipeline(f"{name}{{{option}=no-such-choice}}")
                continue
            assert spec.low is not None and spec.high is not None, (name, option)
            for bad, word in ((spec.low - 1, ">="), (spec.high + 1, "<=")):
                with pytest.raises(TileschedError, match=f"must be {word}"):
                    parse_pass_pipeline(f"{name}{{{option}={bad}}}")


@pytest.mark.parametrize("value", ["2.5", "1e3", "0.0"])
def test_a_fractional_loop_bound_is_refused_not_truncated(tmp_path, capsys, value):
    path = kernel(tmp_path, "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                  f"  scf.for %i = %c0 to %n step %c1 {{\n    tile.load %a, %u : {GM}, {UB}\n  }}",
                  args=f"%a: {GM}, %u: {UB}, %n: index")
    code, err = run(["sim", path, "--arg", f"n={value}"], capsys)
    assert code == 2 and f"k.mlir:1:1: error: --arg n={float(value)}: %n of @k is index, which needs an integer" in err


@pytest.mark.parametrize(("amount", "shown"), [("-1", "-1"), ("100000000000", "100000000000"), ("64", "64")])
@pytest.mark.parametrize("shift", ["arith.shli", "arith.shrsi", "arith.shrui"])
def test_shifts_by_negative_or_huge_amounts_are_located_errors(tmp_path, capsys, amount, shown, shift):
    path = kernel(tmp_path, "  %c1 = arith.constant 1 : index\n"
                  f"  %m = arith.constant {amount} : index\n  %s = {shift} %c1, %m : index")
    code, err = run(["sim", path], capsys)
    assert code == 2
    assert f"k.mlir:4:3: error: '{shift}' cannot be evaluated on (1, {shown}): shift amount {shown} is outside 0..63" in err


def test_integer_arithmetic_wraps_at_its_width_instead_of_growing(tmp_path, capsys):
    """A loop squaring a carried index would build a number with 2^100 digits."""
    path = kernel(tmp_path, "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                  "  %c3 = arith.constant 3 : index\n  %c100 = arith.constant 100 : index\n"
                  "  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%x = %c3) -> (index) {\n"
                  "    %y = arith.muli %x, %x : index\n    scf.yield %y : index\n  }\n"
                  f"  tile.load %a, %u : {GM}, {UB}")
    code, _ = run(["sim", path], capsys)
    assert code == 0


def test_float_to_int_of_infinity_is_a_located_error(tmp_path, capsys):
    path = kernel(tmp_path, "  %big = arith.constant 0x7F800000 : f32\n  %n = arith.fptosi %big : f32 to i64")
    code, err = run(["sim", path], capsys)
    assert code == 2 and "k.mlir:3:3: error: 'arith.fptosi' cannot be evaluated on (inf)" in err


def test_f32_literal_out_of_range_is_located(tmp_path, capsys):
    path = kernel(tmp_path, "  %x = arith.constant 3.0e65 : f32\n"
                  f"  tile.muls %u, %x, %u : {UB}, f32, {UB}")
    for command in (["opt"], ["sim"], ["equiv", path]):
        code, err = run([command[0], path, *command[1:]], capsys)
        assert code == 2 and "k.mlir:2:23: error: float literal 3.0e65 is out of range for f32" in err


def test_a_target_with_an_absurd_bandwidth_is_refused_with_its_line(tmp_path, capsys):
    toml = (load_target("ascend-a2").path)
    text = open(toml).read().replace("bytes_per_cycle = 256", "bytes_per_cycle = nan", 1)
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    path = kernel(tmp_path, f"  tile.load %a, %u : {GM}, {UB}")
    code, err = run(["sim", path, "--target", str(bad)], capsys)
    line = next(number for number, content in enumerate(text.splitlines(), 1)
                if content.startswith("bytes_per_cycle = nan"))
    assert code == 2 and f"bad.toml:{line}:1: error: units.V.bytes_per_cycle: must be a finite number, got nan" in err


@pytest.mark.parametrize(("spec", "message"), [
    ("{dir}", "target file '{dir}' is a directory"),
    ("/dev/null", "target file '/dev/null' is not a regular file"),
    ("{dir}/binary.toml", "cannot read target file '{dir}/binary.toml': not UTF-8 text (byte 0)"),
    ("{dir}/missing.toml", "target file '{dir}/missing.toml' does not exist"),
])
def test_target_paths_that_are_not_target_files(tmp_path, capsys, spec, message):
    (tmp_path / "binary.toml").write_bytes(b"\xff\xfe\x00")
    path = kernel(tmp_path, f"  tile.load %a, %u : {GM}, {UB}")
    code, err = run(["sim", path, "--target", spec.format(dir=tmp_path)], capsys)
    assert code == 2 and message.format(dir=tmp_path) in err


def test_a_symbol_defined_twice_is_located_at_the_second_definition(tmp_path, capsys):
    path = tmp_path / "dup.mlir"
    path.write_text("func.func @k() {\n  func.return\n}\nfunc.func @k() {\n  func.return\n}\n")
    code, err = run(["opt", str(path)], capsys)
    assert code == 2 and f'{path}:4:1: error: Redefinition of symbol "k"' in err


def test_control_characters_are_shown_quoted(tmp_path, capsys):
    path = tmp_path / "nul.mlir"
    path.write_text("func.func @k() {\n  \x00\n}\n")
    code, err = run(["opt", str(path)], capsys)
    assert code == 2 and f"{path}:2:3: error: input is not text: a NUL byte (byte 19)" in err


def test_a_hand_written_stage_beyond_the_limit_is_refused_before_pipelining(tmp_path, capsys):
    """tile.stage = 1000000 made software-pipeline emit a million-stage prologue (hours)."""
    path = kernel(tmp_path, "  %c0 = arith.constant 0 : index\n  %c4 = arith.constant 4 : index\n"
                  "  %c1 = arith.constant 1 : index\n  %v = memref.alloc() : " + UB + "\n"
                  "  scf.for %i = %c0 to %c4 step %c1 {\n"
                  f"    tile.load %a, %u {{tile.stage = 0 : i64, tile.order = 0 : i64}} : {GM}, {UB}\n"
                  f"    tile.exp %u, %v {{tile.stage = 1000000 : i64, tile.order = 1 : i64}} : {UB}, {UB}\n"
                  "  }")
    code, err = run(["opt", path, "-p", "software-pipeline"], capsys)
    assert code == 2 and "k.mlir:8:5: error: 'tile.exp' attribute 'tile.stage' must be an integer in 0..1023" in err


def test_an_unterminated_string_is_refused_at_once(tmp_path, capsys):
    """xDSL's string pattern backtracked through every split of the rest of the line: a quote
    left open before 60 characters took longer than the age of the universe."""
    path = tmp_path / "open.mlir"
    path.write_text('func.func @k() {\n  %x = "' + "abcdefghij" * 6 + "\n}\n")
    code, err = run(["opt", str(path)], capsys)
    assert code == 2 and f"{path}:2:8: error: End of file reached before closing string literal." in err


BILLION = 1_000_000_000
ROWS = 'memref<1000000x16xf32, "GM">'
ROW = 'memref<1x16xf32, "UB">'


def billion_loop(tmp_path, body: str, bound: str = f"arith.constant {BILLION} : index") -> str:
    """``scf.for`` over 10^9 iterations (or ``%n``) at line 5 of k.mlir around ``body``."""
    return kernel(tmp_path, "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                  f"  %big = {bound}\n  scf.for %i = %c0 to %big step %c1 {{\n{body}\n  }}",
                  args=f"%a: {ROWS}, %u: {ROW}, %n: index")


# Rows i*i mod a prime: no period the steady-state simulation could extrapolate.
APERIODIC = ("    %p = arith.constant 999983 : index\n    %sq = arith.muli %i, %i : index\n"
             "    %row = arith.remui %sq, %p : index\n"
             f"    %v = tile.view %a[%row, %c0] {{sizes = array<i64: 1, 16>}} : {ROWS} -> "
             'memref<1x16xf32, "GM">\n'
             f'    tile.load %v, %u : memref<1x16xf32, "GM">, {ROW}')


@pytest.mark.parametrize("bound", [f"arith.constant {BILLION} : index", "arith.addi %n, %c0 : index"])
@pytest.mark.parametrize("full", [[], ["--full"]])
def test_a_billion_iterations_that_are_not_periodic_stop_at_max_ops(tmp_path, capsys, bound, full):
    """Issue 11: ``sim`` of a 10^9 loop (constant, or ``--arg n=1000000000``) ran until killed.
    The loop is named, with the ops a full run would take."""
    path = billion_loop(tmp_path, APERIODIC, bound)
    code, err = run(["sim", path, "--arg", f"n={BILLION}", "--max-ops", "5000", *full], capsys)
    assert code == 2
    if full:  # refused before the run: nested trip counts multiplied (issue 28 §4)
        assert ("k.mlir:5:3: error: this loop runs 1,000,000,000 iterations: simulating every "
                "iteration would take at least 1,000,000,000 ops, more than --max-ops 5,000") in err
    else:
        assert ("k.mlir:5:3: error: this loop runs 1,000,000,000 iterations: simulating every op "
                "would take about 1,000,000,000 ops, more than --max-ops 5,000") in err
        assert "it was not extrapolated because its iterations cannot be shown periodic" in err


def test_a_periodic_billion_iterations_are_extrapolated_or_stop_at_max_ops_with_full(tmp_path, capsys):
    path = billion_loop(tmp_path, APERIODIC.replace("[%row, %c0]", "[%c0, %c0]"))
    assert run(["sim", path, "--arg", "n=1", "--max-ops", "5000"], capsys)[0] == 0
    code, err = run(["sim", path, "--arg", "n=1", "--max-ops", "5000", "--full"], capsys)
    assert code == 2 and "k.mlir:5:3: error: this loop runs 1,000,000,000 iterations" in err


@pytest.mark.parametrize("body", ["", "    %x = arith.addi %i, %c1 : index"])
def test_a_billion_iterations_without_tile_ops(tmp_path, capsys, body):
    """An empty body costs nothing, also with ``--full`` (which hung); a scalar-only body is
    extrapolated, and with ``--full`` each iteration counts against ``--max-ops``."""
    path = billion_loop(tmp_path, body)
    assert run(["sim", path, "--arg", "n=1"], capsys)[0] == 0
    code, err = run(["sim", path, "--arg", "n=1", "--full", "--max-ops", "5000"], capsys)
    if body:
        assert code == 2 and "k.mlir:5:3: error: this loop runs 1,000,000,000 iterations" in err
    else:
        assert code == 0
