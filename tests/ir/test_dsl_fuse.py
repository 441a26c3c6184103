"""The DSL's ``with k.fuse():`` hand-written fusion groups, and what fuse-tiles does with them."""

from __future__ import annotations

import pytest

from tilesched.diagnostics import TileschedError
from tilesched.ir import print_module
from tilesched.ir.dsl import Kernel
from tilesched.ir.tile import FUSION_GROUP, FUSION_ORDER, LAST_USE
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline


def kernel():
    k = Kernel("f", target="ascend-a2")
    x = k.arg("x", (16, 32), "f32", "GM")
    a = k.alloc((16, 32), "f32", "UB", name="a")
    b = k.alloc((16, 32), "f32", "UB", name="b")
    return k, x, a, b


def annotations(module):
    return [(op.name, op.attributes[FUSION_GROUP].value.data, op.attributes[FUSION_ORDER].value.data)
            for op in module.walk() if FUSION_GROUP in op.attributes]


def test_fuse_blocks_make_numbered_groups_in_emission_order():
    k, x, a, b = kernel()
    k.load(x, a)
    with k.fuse():
        k.exp(a, b)
        k.neg(b, b)
    with k.fuse():
        k.abs(b, a)
        k.relu(a, a)
    k.store(a, x)
    assert annotations(k.module()) == [("tile.exp", 0, 0), ("tile.neg", 0, 1),
                                       ("tile.abs", 1, 0), ("tile.relu", 1, 1)]


def test_fuse_tiles_keeps_a_written_group_and_marks_its_last_uses():
    k, x, a, b = kernel()
    k.load(x, a)
    with k.fuse():
        k.exp(a, b)
        k.neg(b, b)
    k.store(b, x)
    module = k.module()
    ctx = TileContext(load_target("ascend-a2"))
    run_pipeline(module, parse_pass_pipeline("fuse-tiles"), ctx)
    assert annotations(module) == [("tile.exp", 0, 0), ("tile.neg", 0, 1)]
    assert all(LAST_USE in op.attributes for op in module.walk() if FUSION_GROUP in op.attributes)
    assert not [d for d in ctx.diagnostics if d.severity == "warning"]


def test_a_group_on_a_load_is_rejected_at_the_python_line():
    k, x, a, b = kernel()
    with k.fuse():
        k.load(x, a)  # not vector compute
        k.exp(a, b)
    module = k.module()
    with pytest.raises(TileschedError) as info:
        run_pipeline(module, parse_pass_pipeline("fuse-tiles"), TileContext(load_target("ascend-a2")))
    assert "'tile.load' cannot be in a fusion group" in str(info.value)
    assert "test_dsl_fuse.py:" in str(info.value.loc)
    assert "tile.fusion_group" in print_module(module)


def test_fuse_blocks_do_not_nest():
    k, _, a, b = kernel()
    with k.fuse(), pytest.raises(TileschedError, match="do not nest"), k.fuse():
        pass
