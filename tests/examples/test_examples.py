"""The bundled examples: DSL code prints its .mlir, which parses, verifies and round-trips.

The only copies live in ``src/tilesched/examples/`` (shipped in the package); the repository's
``examples`` is a symbolic link to that folder.
"""

from __future__ import annotations

import pathlib
import re
import runpy

import pytest

from tilesched.cli import main as cli_main
from tilesched.diagnostics import TileschedError
from tilesched.examples import (
    ALL_EXAMPLES,
    EXAMPLES_DIR,
    build_example,
    example_names,
    example_path,
    example_source,
    get_example,
    render_example,
)
from tilesched.examples.__main__ import main as examples_main
from tilesched.ir import parse_file, parse_text, print_module, verify_module
from tilesched.target.loader import load_target

MIRROR = pathlib.Path(__file__).resolve().parents[2] / "examples"
NAMES = example_names()


def _run_script(path: pathlib.Path, capsys) -> str:
    """What ``python PATH`` prints."""
    runpy.run_path(str(path), run_name="__main__")
    return capsys.readouterr().out


@pytest.mark.parametrize("name", NAMES)
def test_dsl_script_prints_the_mlir_file(name, capsys):
    assert _run_script(example_source(name), capsys) == example_path(name).read_text()
    assert render_example(name) == example_path(name).read_text()


def test_repository_examples_is_a_link_to_the_package_folder():
    assert MIRROR.is_symlink() and MIRROR.resolve() == EXAMPLES_DIR.resolve()
    listed = {f"{n}{ext}" for n in NAMES for ext in (".py", ".mlir")}
    packaged = {p.name for p in EXAMPLES_DIR.iterdir() if p.suffix in (".py", ".mlir")}
    assert packaged - {"__init__.py", "__main__.py"} == listed


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=NAMES)
def test_example_parses_and_verifies_against_its_target(example):
    module = parse_file(str(example_path(example.name)))
    verify_module(module, load_target(example.target))
    assert print_module(module) == print_module(build_example(example.name))


@pytest.mark.parametrize("name", NAMES)
def test_example_round_trips_in_custom_and_generic_form(name):
    text = print_module(parse_file(str(example_path(name))))
    assert print_module(parse_text(text)) == text
    generic = print_module(parse_text(text), generic=True)
    assert print_module(parse_text(generic), generic=True) == generic
    assert print_module(parse_text(generic)) == text


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=NAMES)
def test_cli_verifies_example(example, capsys):
    for path in (example_path(example.name), MIRROR / f"{example.name}.mlir"):
        assert cli_main(["opt", str(path), "-p", "verify", "--target", example.target]) == 0
        assert capsys.readouterr().out == print_module(parse_file(str(path)))


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=NAMES)
def test_examples_are_unsynchronized_unless_hand_synced(example):
    names = {op.name for op in build_example(example.name).walk()}
    assert bool({n for n in names if n.startswith("sync.")}) == example.hand_synced


@pytest.mark.parametrize("name", ["ascend_gemm_db", "ascend_mix_gemm_epilogue",
                                  "ascend_mix_flash_attention"])
def test_hand_synced_gemm_has_a_sync_free_twin(name):
    def without_sync(module):
        for op in list(module.walk()):
            if op.name.startswith("sync."):
                op.detach()
                op.erase()
        text = re.sub(r"%[0-9]+\b", "%_", print_module(module).replace(f"{name}_free", name))
        return "\n".join(line for line in text.splitlines()  # ids computed for sync ops only
                          if not re.search(r"= arith\.(addi %slot, %c2|remsi %(j|next), %c2|addi %_, %c[24]) ", line))

    assert without_sync(build_example(name)) == without_sync(build_example(f"{name}_free"))


def test_examples_have_loops_of_four_to_eight_iterations():
    for name in NAMES:
        text = example_path(name).read_text()
        assert "scf.for" in text
        assert any(f"%c{n} = arith.constant {n} : index" in text for n in range(4, 9))


def test_amd_example_has_stage_borders():
    names = [op.name for op in build_example("amd_gemm").walk()]
    assert names.count("tile.stage_border") == 3


def test_unknown_example_lists_the_valid_ones():
    with pytest.raises(TileschedError, match="unknown example 'nope'; examples: ascend_gemm"):
        get_example("nope")


def test_examples_module_check_and_list(capsys):
    assert examples_main(["--check"]) == 0
    assert examples_main([]) == 0
    out = capsys.readouterr().out
    for example in ALL_EXAMPLES:
        assert example.name in out and example.target in out


def test_examples_module_check_reports_a_stale_mlir(monkeypatch, capsys):
    import tilesched.examples.__main__ as tool

    monkeypatch.setattr(tool, "render_example", lambda name: "changed\n")
    assert examples_main(["--check"]) == 1
    assert "stale:" in capsys.readouterr().out
