"""Mutation fuzzing of the front end and the CLI (issue 11): no input ends in a traceback.

Seeds are the project's own programs: every example, every lit input, and the regression inputs
in ``corpus/`` (each a program a fuzz run once broke, kept so it stays fixed). Hypothesis draws a
seed and a few byte- and token-level mutations (delete, duplicate or swap a span, insert a
token from an MLIR dictionary, replace a number by an extreme one) and runs

- the parser and the verifier in-process: the result is a module or a ``TileschedError``;
- a CLI entry point (``opt`` with a pass pipeline, ``sim``, ``equiv``, ``modulo`` on mutated
  HatScheT GraphML): the exit status is 0, 1 or 2, never 3 (internal error).

Issue 28 adds mutated target files (``targets``, ``sim``, ``opt --target FILE``), ``--arg``
values of every kind against scalar arguments of every type, and every kind of output path
(``-``, a FIFO, a directory, a trailing slash, the input itself) for each command that writes.

CI runs a fixed, derandomized set of examples (about a minute on 2 cores). A longer, random
campaign: ``TILESCHED_FUZZ_EXAMPLES=20000 TILESCHED_FUZZ_RANDOM=1 pytest tests/fuzz -n 2``, or
``benchmarks/fuzz_campaign.sh MINUTES`` (runs rounds until the time is up and counts the inputs
through ``TILESCHED_FUZZ_COUNT``);
minimize what it finds and add it to ``corpus/`` (``.mlir``, or ``.graphml`` with its
``_RM.xml``).
"""

from __future__ import annotations

import os
import pathlib
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.cli import main
from tilesched.diagnostics import TileschedError
from tilesched.ir import parse_text, verify_module
from tilesched.target import builtin_target_names, load_target

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = pathlib.Path(__file__).parent / "corpus"
SEEDS = sorted([*(ROOT / "examples").glob("*.mlir"), *(ROOT / "tests" / "lit").rglob("*.mlir"),
                *CORPUS.glob("*.mlir")])
SEED_TEXTS = [p.read_text() for p in SEEDS]
GRAPH_SEEDS = [(p, p.with_name(p.stem + "_RM.xml"))
               for p in [ROOT / "tests/schedule/modulo/Inputs/small.graphml", *CORPUS.glob("*.graphml")]]

TOKENS = [
    "{", "}", "(", ")", "[", "]", "<", ">", ",", ":", "=", "->", "%", "@", "^", "#", '"', "\n",
    "//", "scf.for", "scf.if", "scf.yield", "func.return", "builtin.module", "tile.view",
    "tile.slot", "tile.load", "tile.store", "tile.matmul", "tile.fill", "tile.call",
    "sync.set_flag", "sync.wait_flag", "sync.barrier", "sync.wait_group", "arith.constant",
    "arith.shli", "arith.divsi", "memref.alloc", "memref<", "memref<16x16xf32, \"UB\">",
    "memref<f32>", "array<i64: ", "index", "f16", "f32", "bf16", "i1", "i64", "0", "1", "-1",
    "64", "99999999999999999999999", "9223372036854775807", "-9223372036854775808", "3.0e65",
    "1.0e-300", "0x7FC00000", "nan", "inf", "tile.stage = ", "tile.order = ", "{accumulate}",
    "\"GM\"", "\"UB\"", "\"L1\"", "\"MTE2\"", "\"V\"", "loc(\"x.mlir\":1:1)", "%c0", "%c1", "%a",
    "iter_args(%x = %c0) -> (index)", "step", "to", "\u00e9", "\x00",
]
NUMBERS = ["0", "-1", "1", "2", "63", "64", "65536", "100000", "99999999999999999999", "-99999",
           "1e300", "nan", "0.5"]


def _count_input() -> None:
    """One more input tried (``TILESCHED_FUZZ_COUNT``: a file the campaign counts lines of)."""
    if counter := os.environ.get("TILESCHED_FUZZ_COUNT"):
        with open(counter, "a") as out:
            out.write(".\n")



def _mutate(text: str, data) -> str:
    """Apply 1-4 drawn mutations to ``text``."""
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        n = len(text)
        kind = data.draw(st.sampled_from(["delete", "duplicate", "insert", "number", "swap", "truncate"]))
        at = data.draw(st.integers(0, n), label="at")
        length = data.draw(st.integers(0, 40), label="length")
        if kind == "delete":
            text = text[:at] + text[at + length:]
        elif kind == "duplicate":
            text = text[:at] + text[at:at + length] * data.draw(st.integers(2, 50)) + text[at:]
        elif kind == "insert":
            text = text[:at] + data.draw(st.sampled_from(TOKENS)) + text[at:]
        elif kind == "number":
            numbers = list(re.finditer(r"-?\d+(\.\d+)?(e[-+]?\d+)?", text))
            if numbers:
                m = numbers[data.draw(st.integers(0, len(numbers) - 1))]
                text = text[:m.start()] + data.draw(st.sampled_from(NUMBERS)) + text[m.end():]
        elif kind == "swap":
            lines = text.split("\n")
            i, j = (data.draw(st.integers(0, len(lines) - 1)) for _ in range(2))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        else:
            text = text[:at]
    return text


def _settings(examples: int):
    return settings(max_examples=int(os.environ.get("TILESCHED_FUZZ_EXAMPLES", examples)),
                    derandomize=not os.environ.get("TILESCHED_FUZZ_RANDOM"), deadline=None,
                    database=None, suppress_health_check=list(HealthCheck))


@_settings(600)
@given(data=st.data())
def test_parser_and_verifier_raise_only_located_errors(data):
    _count_input()
    text = _mutate(data.draw(st.sampled_from(SEED_TEXTS), label="seed"), data)
    target = load_target(data.draw(st.sampled_from(builtin_target_names())))
    try:
        module = parse_text(text, "fuzz.mlir")
        verify_module(module, target)
    except TileschedError as err:
        assert str(err)


PIPELINES = ["verify", "insert-sync", "reorder-events,insert-sync",
             "modulo-schedule,software-pipeline,insert-sync", "software-pipeline,reorder-events"]


SMALL_MAX_OPS = 20_000


@pytest.fixture
def small_limits(monkeypatch):
    """Keep each run small: a mutated loop bound may ask for millions of simulated ops (``sim``
    takes ``--max-ops``; ``equiv`` unrolls up to ``Lowering.trace``'s default)."""
    from tilesched.sim.lowering.lower import Lowering

    monkeypatch.setattr(Lowering.trace, "__defaults__", (SMALL_MAX_OPS,))


@_settings(120)
@given(data=st.data())
def test_cli_exit_codes_are_0_1_or_2(tmp_path_factory, small_limits, data):
    _count_input()
    folder = tmp_path_factory.mktemp("fuzz")
    source = data.draw(st.sampled_from(SEED_TEXTS), label="seed")
    mutated = folder / "m.mlir"
    mutated.write_text(_mutate(source, data))
    original = folder / "o.mlir"
    original.write_text(source)
    target = data.draw(st.sampled_from(builtin_target_names()), label="target")
    command = data.draw(st.sampled_from(["opt", "sim", "equiv"]), label="command")
    argv = {"opt": ["opt", str(mutated), "-p", data.draw(st.sampled_from(PIPELINES))],
            "sim": ["sim", str(mutated), "--max-ops", str(SMALL_MAX_OPS)],
            "equiv": ["equiv", str(original), str(mutated), "--max-bytes", "16M"]}[command]
    code = main([*argv, "--target", target])
    assert code in (0, 1, 2), f"exit {code} for {argv}"


@_settings(120)
@given(data=st.data())
def test_modulo_exit_codes_are_0_1_or_2(tmp_path_factory, data):
    _count_input()
    graph, resources = data.draw(st.sampled_from(GRAPH_SEEDS))
    folder = tmp_path_factory.mktemp("graphs")
    (folder / "g.graphml").write_text(_mutate(graph.read_text(), data))
    (folder / "g_RM.xml").write_text(_mutate(resources.read_text(), data)
                                     if data.draw(st.booleans()) else resources.read_text())
    code = main(["modulo", str(folder / "g.graphml"), "--time-limit", "2"])
    assert code in (0, 1, 2)


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.mlir")), ids=lambda p: p.name)
def test_corpus_regressions_end_in_a_clean_exit(path, small_limits, capsys):
    """Every input a fuzz run once broke: a clean verdict from each entry point."""
    for argv in (["opt", str(path), "-p", "modulo-schedule,software-pipeline,insert-sync"],
                 ["sim", str(path), "--max-ops", str(SMALL_MAX_OPS)], ["equiv", str(path), str(path)]):
        assert main(argv) in (0, 1, 2), argv
    assert "internal error" not in capsys.readouterr().err


# ----------------------------------------------------------------- issue 28: targets, --arg, -o

TARGET_DIR = ROOT / "src" / "tilesched" / "target" / "builtin"
TARGET_TEXTS = [p.read_text() for p in sorted(TARGET_DIR.glob("*.toml"))]
TOML_TOKENS = ["[", "]", "{", "}", "[[", "]]", "=", ",", ".", '"', "'", '"""', "\n", "#", "\\",
               "[units.X]", "[[routes]]", "kind = ", "capacity = ", "fixed = ", "nan", "inf",
               "-inf", "1e400", "-1", "0", "1e-300", "99999999999999999999", "true", "[" * 200,
               "{a = " * 100, "\ufeff", "\x00", "é", "name", "sync = \"flags\"", "event_limit = "]
KERNEL = ROOT / "examples" / "ascend_gemm.mlir"


def _mutate_toml(text: str, data) -> str:
    """1-4 drawn mutations of a target file (TOML tokens, deep nesting, numbers)."""
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        at = data.draw(st.integers(0, len(text)), label="at")
        kind = data.draw(st.sampled_from(["delete", "insert", "number", "duplicate"]))
        if kind == "delete":
            text = text[:at] + text[at + data.draw(st.integers(0, 60)):]
        elif kind == "insert":
            text = text[:at] + data.draw(st.sampled_from(TOML_TOKENS)) + text[at:]
        elif kind == "duplicate":
            length = data.draw(st.integers(0, 60))
            text = text[:at] + text[at:at + length] * data.draw(st.integers(2, 30)) + text[at:]
        else:
            numbers = list(re.finditer(r"-?\d+(\.\d+)?", text))
            if numbers:
                m = numbers[data.draw(st.integers(0, len(numbers) - 1))]
                text = text[:m.start()] + data.draw(st.sampled_from(NUMBERS + ["1e400", "-0"])) \
                    + text[m.end():]
    return text


@_settings(120)
@given(data=st.data())
def test_target_files_exit_0_1_or_2(tmp_path_factory, small_limits, data):
    """Mutated target files: ``targets FILE`` and a simulation on them end in 0, 1 or 2."""
    _count_input()
    folder = tmp_path_factory.mktemp("targets")
    toml = folder / "t.toml"
    toml.write_text(_mutate_toml(data.draw(st.sampled_from(TARGET_TEXTS), label="seed"), data))
    command = data.draw(st.sampled_from(["targets", "sim", "opt"]), label="command")
    argv = {"targets": ["targets", str(toml)],
            "sim": ["sim", str(KERNEL), "--target", str(toml), "--max-ops", str(SMALL_MAX_OPS)],
            "opt": ["opt", str(KERNEL), "--target", str(toml), "-p", "insert-sync"]}[command]
    code = main(argv)
    assert code in (0, 1, 2), f"exit {code} for {argv}"


SCALAR_TYPES = ["index", "i1", "i8", "i16", "i32", "i64", "si8", "ui8", "f16", "bf16", "f32", "f64"]
ARG_VALUES = ["0", "1", "-1", "2", "127", "128", "255", "256", "-129", "65504", "65505", "1e10",
              "-1e10", "1e39", "1e400", "nan", "inf", "-inf", "0.5", "2.5", "0x10", "0b11", "1_000",
              "9223372036854775807", "9223372036854775808", "-9223372036854775809", "", "x", "1e",
              "99999999999999999999999999999", "- 1", "١", "0o17", "1j"]


@_settings(150)
@given(data=st.data())
def test_arg_values_exit_0_1_or_2(tmp_path_factory, small_limits, data):
    """``--arg`` values of every kind against scalar arguments of every type (one of which may
    bound a loop): ``sim`` and ``equiv`` end in 0, 1 or 2."""
    _count_input()
    kind = data.draw(st.sampled_from(SCALAR_TYPES), label="type")
    bounds = kind == "index" and data.draw(st.booleans(), label="bounds")
    body = ('  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n'
            '  scf.for %i = %c0 to %s step %c1 {\n    tile.load %a, %u : memref<16x16xf32, "GM">, '
            'memref<16x16xf32, "UB">\n  }' if bounds else
            '  tile.load %a, %u : memref<16x16xf32, "GM">, memref<16x16xf32, "UB">')
    folder = tmp_path_factory.mktemp("args")
    path = folder / "k.mlir"
    path.write_text(f'func.func @k(%a: memref<16x16xf32, "GM">, %u: memref<16x16xf32, "UB">, '
                    f'%s: {kind}) {{\n{body}\n  func.return\n}}\n')
    name = data.draw(st.sampled_from(["s", "s", "%s", "t", "", "s=1"]), label="name")
    value = data.draw(st.sampled_from(ARG_VALUES), label="value")
    command = data.draw(st.sampled_from(["sim", "equiv"]), label="command")
    argv = ([command, str(path)] + ([str(path)] if command == "equiv" else [])
            + ["--arg", f"{name}={value}"] + (["--max-ops", "2000"] if command == "sim" else []))
    code = main(argv)
    assert code in (0, 1, 2), f"exit {code} for {argv}"


OUTPUT_KINDS = ["-", "new.out", "missing/new.out", "dir", "dir/", "new.out/", "fifo", "/dev/null",
                "input", "link-to-input", "", ".", "..", "dir/x/", "unwritable/x.out"]


@_settings(120)
@given(data=st.data())
def test_output_paths_exit_0_1_or_2(tmp_path_factory, capsys, data):
    """Every command that writes a file, with every kind of output path (a FIFO is refused, not
    waited on): exit 0, 1 or 2, and the input file is never clobbered."""
    _count_input()
    folder = tmp_path_factory.mktemp("outputs")
    source = folder / "k.mlir"
    text = KERNEL.read_text()
    source.write_text(text)
    (folder / "dir").mkdir()
    (folder / "unwritable").mkdir(mode=0o555)
    os.mkfifo(folder / "fifo")
    (folder / "link-to-input").symlink_to(source)
    kind = data.draw(st.sampled_from(OUTPUT_KINDS), label="output")
    out = {"input": str(source)}.get(kind, kind if kind in ("-", "", "/dev/null") else
                                      str(folder / kind))
    command = data.draw(st.sampled_from(["opt", "sim", "report", "tune"]), label="command")
    argv = {"opt": ["opt", str(source), "-p", "insert-sync", "-o", out],
            "sim": ["sim", str(source), "--trace", out],
            "report": ["report", str(source), "-o", out],
            "tune": ["tune", str(source), "--budget", "1", "--jobs", "1", "--results", out]}[command]
    code = main(argv)
    capsys.readouterr()
    assert code in (0, 1, 2), f"exit {code} for {argv}"
    assert source.read_text() == text, f"{argv} changed its input"
