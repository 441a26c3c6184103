"""The search space is read from the passes' declarations (role, sync families, needs/provides,
options with ``tune=``): a pass registered later, here a test-only pass, joins it untouched."""

from __future__ import annotations

import dataclasses
import pathlib
import sys
import types

import pytest

from tilesched.examples import example_path
from tilesched.ir import parse_file
from tilesched.target import load_target
from tilesched.transforms import registry
from tilesched.transforms.pass_base import TilePass, option, option_specs, program_facts
from tilesched.transforms.registry import (
    available_passes,
    default_passes,
    format_pipeline,
    parse_pass_pipeline,
)
from tilesched.tune.space import SearchSpace

LIT = pathlib.Path(__file__).resolve().parents[1] / "lit"
HAND_STAGED = LIT / "software_pipeline" / "ascend_gemm_flags.mlir"  # tile.stage written by hand


def space_of(kernel: str, target: str) -> SearchSpace:
    path = example_path(kernel) if "/" not in kernel else kernel
    return SearchSpace(load_target(target), program_facts(parse_file(str(path))))


@dataclasses.dataclass(frozen=True)
class LdsShufflePass(TilePass):
    """A test-only pass for barrier targets, with two knobs and one option that is no knob."""

    name = "lds-shuffle"
    role = "optional"
    families = frozenset({"barriers"})
    needs = frozenset({"tile.stage_border"})
    ways: int = option(1, "ways", low=1, high=8, tune=(2, 4))
    mode: str = option("a", "mode", choices=("a", "b"), tune=("a", "b"))
    verbose: bool = option(False, "not searched")

    def run(self, module, ctx) -> None:  # leaves the program as it is
        return None


@pytest.fixture
def lds_shuffle_registered(monkeypatch):
    """Register the test pass before insert-sync, as a new pass module would be."""
    module = types.ModuleType("tilesched_test_lds_shuffle")
    module.PASS = LdsShufflePass
    monkeypatch.setitem(sys.modules, module.__name__, module)
    order = list(registry.PASS_MODULES.items())
    at = [name for name, _ in order].index("insert-sync")
    order.insert(at, ("lds-shuffle", module.__name__))
    monkeypatch.setattr(registry, "PASS_MODULES", dict(order))
    return LdsShufflePass


def test_space_lists_the_passes_of_the_target_in_pipeline_order():
    ascend = space_of("ascend_gemm", "ascend-a2")
    assert [d.name for d in ascend.dimensions] == [
        "fuse-tiles", "modulo-schedule", "software-pipeline", "reorder-events", "insert-sync"]
    cuda = space_of("cuda_gemm", "cuda-sm80")
    assert "reorder-events" not in [d.name for d in cuda.dimensions]  # flags only
    assert "fuse-tiles" not in [d.name for d in cuda.dimensions]  # no unit runs fused spans
    assert "verify" not in [d.name for d in ascend.dimensions]  # a tool, never searched


def test_knobs_are_the_declared_tune_values_with_the_default_first():
    space = space_of("ascend_gemm", "ascend-a2")
    for dim in space.dimensions:
        specs = option_specs(dim.cls)
        declared = {name for name, spec in specs.items() if spec.tune is not None}
        assert {name for name, _ in dim.knobs} == declared
        for name, values in dim.knobs:
            assert values[0] == getattr(dim.cls, name)
            assert set(values) == {values[0], *specs[name].tune}
    params = space.parameters()
    assert params["reorder-events.objective"] == ("fit", "cycles")
    assert "insert-sync" not in params  # required: never off
    assert params["modulo-schedule"] == (True, False)  # "pass off" is a choice


def test_baseline_is_the_registry_default_pipeline():
    for kernel, target in [("ascend_gemm", "ascend-a2"), ("cuda_gemm", "cuda-sm80")]:
        space = space_of(kernel, target)
        assert space.baseline().passes == tuple(default_passes(space.target, space.facts))
        assert space.candidate(space.baseline_choice()) == space.baseline()
    assert format_pipeline(default_passes(load_target("ascend-a2"))) == \
        "modulo-schedule,software-pipeline,reorder-events,insert-sync"


def test_every_candidate_is_a_distinct_pipeline_opt_accepts():
    space = space_of("cuda_gemm", "cuda-sm80")
    candidates = space.candidates()
    pipelines = [c.pipeline for c in candidates]
    assert len(set(pipelines)) == len(pipelines) <= space.size_bound()
    assert candidates[0] == space.baseline()
    for candidate in candidates:
        assert tuple(parse_pass_pipeline(candidate.pipeline)) == candidate.passes
        assert candidate.passes[-1].name == "insert-sync"


def test_a_pass_without_what_it_needs_is_left_out():
    space = space_of("ascend_gemm", "ascend-a2")
    no_modulo = space.candidate({"modulo-schedule": False, "software-pipeline": True})
    assert "software-pipeline" not in no_modulo.pipeline  # no tile.stage to expand
    hand = space_of(str(HAND_STAGED), "ascend-a2")
    assert "tile.stage" in hand.facts
    kept = hand.candidate({"modulo-schedule": False, "software-pipeline": True})
    assert kept.pipeline.startswith("software-pipeline")


def test_a_loop_free_kernel_has_no_loop_passes(tmp_path):
    kernel = tmp_path / "flat.mlir"
    kernel.write_text(
        'builtin.module {\n  func.func @f(%a: memref<16x16xf16, "GM">, %b: memref<16x16xf16, "GM">) {\n'
        '    %t = memref.alloc() : memref<16x16xf16, "UB">\n'
        '    tile.load %a, %t : memref<16x16xf16, "GM">, memref<16x16xf16, "UB">\n'
        '    tile.store %t, %b : memref<16x16xf16, "UB">, memref<16x16xf16, "GM">\n'
        '    func.return\n  }\n}\n')
    space = space_of(str(kernel), "ascend-a2")
    pipelines = [c.pipeline for c in space.candidates()]
    assert pipelines[0] == space.baseline().pipeline == "reorder-events,insert-sync"
    assert "insert-sync" in pipelines and len(pipelines) == 1 + 4 * 2  # off, strategy x objective
    assert not any("modulo" in p or "software-pipeline" in p for p in pipelines)


def test_a_newly_registered_pass_joins_the_space(lds_shuffle_registered):
    assert "lds-shuffle" in available_passes()
    amd = space_of("amd_gemm", "amd-gfx950")
    names = [d.name for d in amd.dimensions]
    assert names.index("lds-shuffle") == names.index("insert-sync") - 1
    params = amd.parameters()
    assert params["lds-shuffle"] == (False, True)  # optional: off by default
    assert params["lds-shuffle.ways"] == (1, 2, 4) and params["lds-shuffle.mode"] == ("a", "b")
    assert "lds-shuffle.verbose" not in params
    assert "lds-shuffle" not in amd.baseline().pipeline
    on = amd.candidate({"lds-shuffle": True, "lds-shuffle.ways": 4})
    assert "lds-shuffle{ways=4}" in on.pipeline
    assert on.options(amd)["lds-shuffle"] == {"ways": 4, "mode": "a"}
    candidates = amd.candidates()
    without = [c for c in candidates if "lds-shuffle" not in c.pipeline]
    assert len(candidates) == len(without) * 7  # off, or one of 3 x 2 configurations
    # not on a flag target; not on a kernel without stage borders (nothing to act on)
    assert "lds-shuffle" not in [d.name for d in space_of("ascend_gemm", "ascend-a2").dimensions]
    no_borders = space_of("cuda_gemm", "amd-gfx950")
    assert not any("lds-shuffle" in c.pipeline for c in no_borders.candidates())


def test_the_fingerprint_follows_the_space_and_the_inputs(lds_shuffle_registered, monkeypatch):
    space = space_of("amd_gemm", "amd-gfx950")
    before = space.fingerprint("kernel-v1")
    assert before == space_of("amd_gemm", "amd-gfx950").fingerprint("kernel-v1")
    assert before != space.fingerprint("kernel-v2")
    monkeypatch.setattr(LdsShufflePass, "needs", frozenset({"scf.for"}))
    assert space_of("amd_gemm", "amd-gfx950").fingerprint("kernel-v1") != before
