"""Passes are real xDSL ModulePasses: they run in xDSL's PassPipeline with a TileContext (or a
plain Context and the module's ``tile.target``), their options are declared once with ranges
that the pipeline parser enforces, and the registry fails loudly on a missing pass module."""

from __future__ import annotations

import dataclasses

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import StringAttr
from xdsl.passes import ModulePass, PassPipeline

from tilesched.diagnostics import TileschedError
from tilesched.examples import example_path
from tilesched.ir import parse_file, print_module
from tilesched.target import load_target
from tilesched.transforms import registry
from tilesched.transforms.pass_base import (
    TileContext,
    TilePass,
    option,
    option_specs,
    program_facts,
)
from tilesched.transforms.registry import (
    available_passes,
    default_passes,
    describe_options,
    format_pipeline,
    parse_pass_pipeline,
    run_pipeline,
)

CUDA_GEMM = str(example_path("cuda_gemm"))


def test_every_registered_pass_is_an_xdsl_module_pass_with_declared_options():
    for name, cls in available_passes().items():
        assert issubclass(cls, ModulePass) and cls.name == name
        declared = {f.name for f in dataclasses.fields(cls)}
        assert declared == set(option_specs(cls)), f"{name}: every option needs option(...)"


def test_passes_run_in_an_xdsl_pass_pipeline_with_a_tile_context():
    module = parse_file(CUDA_GEMM)
    ctx = TileContext(load_target("cuda-sm80"))
    PassPipeline(tuple(parse_pass_pipeline("insert-sync"))).apply(ctx, module)
    ours = parse_file(CUDA_GEMM)
    run_pipeline(ours, parse_pass_pipeline("insert-sync"), TileContext(load_target("cuda-sm80")))
    assert "sync.wait_group" in print_module(module)
    assert print_module(module) == print_module(ours)


def test_a_plain_context_uses_the_modules_target_attribute():
    module = parse_file(CUDA_GEMM)
    module.attributes["tile.target"] = StringAttr("cuda-sm80")
    PassPipeline(tuple(parse_pass_pipeline("insert-sync"))).apply(Context(), module)
    assert "sync.commit_group" in print_module(module)


def test_tile_context_clone_keeps_the_target_and_dialects():
    ctx = TileContext(load_target("ascend-a2"))
    ctx.remarks["x"] = 1
    copy = ctx.clone()
    assert copy.target is ctx.target and copy.remarks == {"x": 1}
    assert copy.get_optional_op("tile.load") is not None


@pytest.mark.parametrize(("pipeline", "message"), [
    ("modulo-schedule{num_stages=-3}", "num-stages must be >= 1, got -3"),
    ("modulo-schedule{num_stages=100000}", "num-stages must be <= 64, got 100000"),
    ("modulo-schedule{max_ii=0}", "max-ii must be >= 1, got 0"),
    ("software-pipeline{unroll=-1}", "unroll must be >= 0, got -1"),
    ("reorder-events{objective=speed}", "objective must be one of fit, cycles, got speed"),
])
def test_option_ranges_are_enforced_by_the_parser(pipeline, message):
    with pytest.raises(TileschedError, match=message):
        parse_pass_pipeline(pipeline)


def test_option_ranges_are_enforced_on_construction_too():
    cls = available_passes()["modulo-schedule"]
    with pytest.raises(ValueError, match="num-stages must be >= 1"):
        cls(num_stages=0)


def test_options_describe_themselves_for_help_and_errors():
    text = describe_options(available_passes()["modulo-schedule"])
    assert "num-stages (1..64, unset)" in text and "exact=false" in text


def test_a_listed_pass_whose_module_is_missing_fails_loudly(monkeypatch):
    monkeypatch.setitem(registry.PASS_MODULES, "ghost", "tilesched.transforms.ghost")
    with pytest.raises(ModuleNotFoundError):
        available_passes()


def test_declared_domains_are_checked_for_a_new_pass():
    @dataclasses.dataclass(frozen=True)
    class Demo(TilePass):
        name = "demo-pass"
        mode: str = option("a", "a mode", choices=("a", "b"), tune=("a", "b"))

    assert Demo(mode="b").mode == "b"
    with pytest.raises(ValueError, match="mode must be one of a, b, got c"):
        Demo(mode="c")
    assert option_specs(Demo)["mode"].tune == ("a", "b")


@pytest.mark.parametrize("text", [
    "modulo-schedule{num_stages=3 exact=true},software-pipeline{unroll=2},"
    "reorder-events{strategy=min-max objective=cycles},insert-sync",
    "insert-sync{naive=true}",
    "modulo-schedule,insert-sync",
])
def test_format_pipeline_writes_what_the_parser_reads(text):
    passes = parse_pass_pipeline(text)
    assert format_pipeline(passes) == text
    assert parse_pass_pipeline(format_pipeline(passes)) == passes


def test_passes_declare_where_they_apply():
    passes = available_passes()
    ascend, cuda = load_target("ascend-a2"), load_target("cuda-sm80")
    assert passes["reorder-events"].applies_to(ascend) and not passes["reorder-events"].applies_to(cuda)
    facts = program_facts(parse_file(CUDA_GEMM))
    assert {"scf.for", "tile.load"} <= facts and "tile.stage" not in facts
    assert passes["modulo-schedule"].acts_on(facts)
    assert not passes["software-pipeline"].acts_on(facts)
    assert passes["software-pipeline"].acts_on(facts | passes["modulo-schedule"].provides)
    assert [p.name for p in default_passes(cuda, facts)] == [
        "modulo-schedule", "software-pipeline", "insert-sync"]
