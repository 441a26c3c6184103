"""CLI contract: exit codes, located errors, no tracebacks (DESIGN.md §5)."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import pytest

from tilesched.cli import main

VERIFY_DIR = pathlib.Path(__file__).parent.parent / "lit" / "verify"
GOOD = pathlib.Path(__file__).parent.parent / "lit" / "ir" / "generic_form.mlir"
LOCATED = re.compile(r"^\S+\.mlir:\d+:\d+: error: ", re.M)


def _run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("path", sorted(VERIFY_DIR.glob("*.mlir")), ids=lambda p: p.stem)
def test_malformed_inputs_exit_2_with_a_located_message(path, capsys):
    target = re.search(r"--target (\S+)", path.read_text()).group(1)
    code, out, err = _run(["opt", str(path), "-p", "verify", "--target", target], capsys)
    assert code == 2
    assert LOCATED.search(err), err
    assert out == ""


def test_good_input_exits_0_and_prints_ir(capsys):
    code, out, err = _run(["opt", str(GOOD), "-p", "verify", "--target", "ascend-a2"], capsys)
    assert code == 0 and "tile.exp" in out and err == ""


@pytest.mark.parametrize(("argv", "message"), [
    (["opt", "does-not-exist.mlir"], "cannot read 'does-not-exist.mlir': no such file"),
    (["opt", str(GOOD), "-p", "no-such-pass"], "unknown pass 'no-such-pass'; valid passes: verify"),
    (["opt", str(GOOD), "-p", "verify{x=1}"], "bad options for pass 'verify'"),
    (["opt", str(GOOD), "-p", "verify{"], "invalid pass pipeline"),
    (["opt", str(GOOD), "--target", "tpu"], "unknown target 'tpu'; valid targets: amd-gfx1250, "
                                            "amd-gfx950, ascend-910a, ascend-a2, ascend-a2-mix, cuda-sm80"),
    (["opt", str(GOOD), "--target", "missing.toml"], "target file 'missing.toml' does not exist"),
])
def test_usage_errors_exit_2(argv, message, capsys):
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert message in err


def test_binary_and_directory_inputs_exit_2(tmp_path, capsys):
    binary = tmp_path / "x.mlir"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    code, _, err = _run(["opt", str(binary)], capsys)
    assert code == 2 and "cannot read" in err
    code, _, err = _run(["opt", str(tmp_path)], capsys)
    assert code == 2 and f"cannot read '{tmp_path}': is a directory" in err
    code, _, err = _run(["opt", str(tmp_path / "nope.mlir")], capsys)
    assert code == 2 and "no such file" in err


def test_empty_file_is_an_empty_module(tmp_path, capsys):
    empty = tmp_path / "e.mlir"
    empty.write_text("")
    code, out, _ = _run(["opt", str(empty)], capsys)
    assert code == 0 and out.strip() == "builtin.module {\n}".strip()


def test_output_file_and_generic_form(tmp_path, capsys):
    out_file = tmp_path / "o.mlir"
    code, out, _ = _run(["opt", str(GOOD), "--generic", "-o", str(out_file)], capsys)
    assert code == 0 and out == ""
    assert out_file.read_text().startswith('"builtin.module"() ({')


def test_targets_lists_units_and_sync_limits(capsys):
    code, out, _ = _run(["targets"], capsys)
    assert code == 0
    for name in ("ascend-a2", "ascend-910a", "cuda-sm80", "amd-gfx950", "amd-gfx1250"):
        assert f"{name}:" in out
    assert "8 event ids per directed unit pair" in out and "4 event ids" in out
    code, out, _ = _run(["targets", "--json", "ascend-a2"], capsys)
    (described,) = json.loads(out)
    assert described["event_limit"] == 8 and described["units"]["MTE2"]["kind"] == "queued"


def test_no_command_prints_help_and_exits_2(capsys):
    code, out, _ = _run([], capsys)
    assert code == 2 and "usage: tilesched" in out


def test_console_script_has_no_traceback_on_bad_input(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text('func.func @k() {\n  "tile.load"() : () -> ()\n  func.return\n}\n')
    result = subprocess.run([sys.executable, "-m", "tilesched.cli", "opt", str(bad)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"{bad}:2:3: error:" in result.stderr


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert re.fullmatch(r"tilesched \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)


def test_help_lists_every_command_as_its_own_parser_describes_it():
    """``tilesched --help`` reads the summaries from source; they must be the registered ones."""
    from tilesched.cli import COMMANDS, build_parser

    assert build_parser(load=[]).format_help() == build_parser(load=COMMANDS).format_help()


@pytest.mark.parametrize("argv", [["--version"], ["--help"]])
def test_startup_imports_only_the_command_it_runs(argv):
    """--version and --help start without xDSL, OR-Tools, pandas or numpy
    (building every command's parser imported them all: 1.6 s of CPU before printing a line)."""
    heavy = ("xdsl", "ortools", "pandas", "numpy")
    program = (f"import sys\nfrom tilesched.cli import main\ntry:\n    main({argv!r})\n"
               f"except SystemExit:\n    pass\nprint([m for m in {heavy!r} if m in sys.modules])")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.splitlines()[-1] == "[]", result.stderr


@pytest.mark.parametrize("argv", [["opt", "--help"], ["opt", "k.mlir", "-p", "verify", "--bad"]])
def test_opt_help_imports_no_pass(argv):
    """``opt --help`` names the passes without importing them (importing every pass, OR-Tools
    included, took 1.3 s); a pipeline imports the modules of the passes it names only."""
    program = (f"import sys\nfrom tilesched.cli import main\ntry:\n    main({argv!r})\n"
               "except SystemExit:\n    pass\n"
               "from tilesched.transforms.registry import PASS_MODULES, parse_pass_pipeline\n"
               "print(sorted(m for m in PASS_MODULES.values() if m in sys.modules))\n"
               "parse_pass_pipeline('verify,insert-sync')\n"
               "print(sorted(m for m in PASS_MODULES.values() if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    before, after = result.stdout.splitlines()[-2:]
    assert before == "[]"
    assert "transforms.verify'" in after and "transforms.insert_sync'" in after
    assert "modulo_schedule" not in after and "warp_pipeline" not in after
    if "--help" in argv:
        assert "Passes: verify, fuse-tiles, modulo-schedule" in " ".join(result.stdout.split())


def test_a_mistyped_command_lists_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["smi", "k.mlir"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'smi' (choose from 'demo', 'opt', 'sim'" in capsys.readouterr().err


def test_an_unexpected_exception_is_an_internal_error_with_exit_3(monkeypatch, capsys):
    """The one path no input may reach: a bug. It must not look like exit 1 ("faulty program")."""
    import tilesched.commands.targets as targets_command

    def broken(args):
        raise KeyError("boom")

    monkeypatch.setattr(targets_command, "run", broken)
    code, _, err = _run(["targets"], capsys)
    assert code == 3
    assert "tilesched: internal error: KeyError: 'boom' (at " in err
    assert "This is a bug in tilesched" in err and "TILESCHED_TRACEBACK=1" in err
    assert "Traceback" not in err
    monkeypatch.setenv("TILESCHED_TRACEBACK", "1")
    code, _, err = _run(["targets"], capsys)
    assert code == 3 and "Traceback (most recent call last)" in err


@pytest.mark.parametrize("argv", [
    ["opt", "{in}", "-o", "{in}"],
    ["opt", "{in}", "--json", "-o", "{in}"],
    ["opt", "{in}", "-p", "verify", "-o", "{dir}/./in.mlir"],
    ["sim", "{in}", "--trace", "{in}"],
])
def test_outputs_never_overwrite_the_input_without_force(tmp_path, argv, capsys):
    source = tmp_path / "in.mlir"
    original = GOOD.read_text()
    source.write_text(original)
    code, out, err = _run([a.format(**{"in": source, "dir": tmp_path}) for a in argv], capsys)
    assert code == 2 and "is the input file" in err and "--force" in err
    assert source.read_text() == original and out == ""


def test_force_overwrites_the_input_with_the_complete_result(tmp_path, capsys):
    source = tmp_path / "in.mlir"
    source.write_text(GOOD.read_text())
    code, out, _ = _run(["opt", str(source), "--generic", "-o", str(source), "--force"], capsys)
    assert code == 0 and out == ""
    assert source.read_text().startswith('"builtin.module"() ({')
    assert [p.name for p in tmp_path.iterdir()] == ["in.mlir"]


@pytest.mark.parametrize(("option", "where", "message"), [
    ("-o", "", "is a directory"),
    ("-o", "missing/x.mlir", "no such directory"),
    ("--trace", "", "is a directory"),
    ("--trace", "missing/t.json", "no such directory"),
])
def test_output_places_that_cannot_be_written_exit_2_before_any_work(tmp_path, option, where,
                                                                      message, capsys):
    command = "sim" if option == "--trace" else "opt"
    code, out, err = _run([command, str(GOOD), option, str(tmp_path / where)], capsys)
    assert code == 2 and message in err and out == ""
