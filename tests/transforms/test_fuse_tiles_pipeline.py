"""Fused spans through the loop passes: ``modulo-schedule`` schedules a span as one node (one
stage, consecutive orders), so ``software-pipeline`` keeps every copy of it whole."""

from __future__ import annotations

import pytest
from fusion_kernels import flags_in_trace, true_last_uses, vector_kernel
from hypothesis import HealthCheck, given, settings
from test_fuse_tiles_properties import assert_groups_are_contiguous_spans, run

from tilesched.examples import example_path
from tilesched.ir import parse_text
from tilesched.ir.tile import FUSION_GROUP, ORDER, STAGE
from tilesched.report.sim_json import fused_spans
from tilesched.sim.functional import equivalent
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target

A2 = load_target("ascend-a2")
PIPELINED = "fuse-tiles,modulo-schedule,software-pipeline,reorder-events,insert-sync"


def test_modulo_schedule_gives_a_span_one_stage_and_consecutive_orders():
    module = run(example_path("ascend_softmax").read_text(), "fuse-tiles,modulo-schedule")
    groups: dict[int, list] = {}
    for op in module.walk():
        if FUSION_GROUP in op.attributes:
            groups.setdefault(op.attributes[FUSION_GROUP].value.data, []).append(op)
    assert groups
    for ops in groups.values():
        assert len({op.attributes[STAGE].value.data for op in ops}) == 1
        orders = [op.attributes[ORDER].value.data for op in ops]
        assert orders == list(range(orders[0], orders[0] + len(ops)))


@pytest.mark.parametrize("example", ["ascend_softmax", "ascend_layernorm",
                                     "ascend_attention_epilogue"])
def test_pipelining_keeps_every_span_of_the_examples(example):
    text = example_path(example).read_text()
    reference = lower_module(parse_text(text, f"{example}.mlir"), A2)
    flat = lower_module(run(text, "fuse-tiles,reorder-events,insert-sync"), A2)
    pipelined = run(text, PIPELINED)
    assert_groups_are_contiguous_spans(pipelined)
    trace = lower_module(pipelined, A2)
    result = simulate(trace)
    assert result.ok, (result.races, result.deadlock, result.violations)
    assert equivalent(reference, trace).equivalent
    assert fused_spans(trace) == fused_spans(flat) > 0


@settings(deadline=None, max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(vector_kernel(loop=True))
def test_random_loop_kernels_through_the_loop_passes(text):
    reference = lower_module(parse_text(text, "kernel.mlir"), A2)
    module = run(text, PIPELINED)
    assert_groups_are_contiguous_spans(module)
    trace = lower_module(module, A2)
    truth = true_last_uses(trace)
    for key, flag in flags_in_trace(trace).items():
        assert flag == truth[key], f"last_use of {key} is {flag}, the checker says {truth[key]}"
    result = simulate(trace)
    assert result.ok, (result.races, result.deadlock, result.violations)
    assert equivalent(reference, trace).equivalent
