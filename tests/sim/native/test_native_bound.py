"""The compiled lower-bound tracker gives exactly the Python tracker's answers.

Differential: the same instructions are fed to ``critical_path.BoundTracker`` (the reference)
and ``native/bound.pyx`` ``BoundTracker``, and the bound with its reason, the busiest unit and the
per-unit work (in order) must be equal: on every example, the synthetic traces of the three
sync families, straight-line code over many distinct and partially overlapping tiles, and
random accesses (overlapping, nested, partially overlapping, empty and inverted windows, 1-3
dimensions, large buffer ids), with the grid index's thresholds varied so that random inputs
cross them.
"""

from __future__ import annotations

import contextlib
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.examples import EXAMPLES, example_path
from tilesched.ir import parse_text
from tilesched.sim import isa
from tilesched.sim.code.program import Agent, Program, compile_trace
from tilesched.sim.engine.critical_path import BoundTracker, lower_bound, new_bound_tracker
from tilesched.sim.isa import ENQ, INLINE, SET, TILE
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.synthetic import amd_lds_gemm, ascend_gemm, ascend_machine, cuda_pipeline
from tilesched.sim.trace import TraceBuilder
from tilesched.target import load_target

try:
    from tilesched.sim.native.bound import BoundTracker as NativeBoundTracker
except ImportError:
    if os.environ.get("TILESCHED_REQUIRE_NATIVE"):
        pytest.fail("TILESCHED_REQUIRE_NATIVE is set but native/bound.pyx was not built")
    pytest.skip("native/bound.pyx was not built", allow_module_level=True)


def answers(tracker) -> tuple:
    return tracker.bound(), tracker.busiest(), list(tracker.work.items())


def longest_paths(tracker) -> list[int]:
    """Each issuer's longest read-after-write chain so far."""
    if isinstance(tracker, BoundTracker):
        return [path.longest for path in tracker.paths or ()]
    return tracker.longest_paths()


def feed_both(p: Program, chunk: int | None = None, paths: bool = True) -> tuple:
    """Feed ``p`` to both trackers in chunks of ``chunk`` instructions, comparing each
    issuer's longest chain after every chunk; both final answers."""
    trackers = BoundTracker(p, paths), NativeBoundTracker(p, paths)
    for issuer, code in enumerate(p.code):
        step = chunk or max(1, len(code))
        for at in range(0, len(code), step):
            for tracker in trackers:
                tracker.feed(issuer, code[at:at + step])
            assert longest_paths(trackers[1]) == longest_paths(trackers[0])
    return tuple(answers(t) for t in trackers)


def assert_same(p: Program, chunk: int | None = None) -> tuple:
    python, native = feed_both(p, chunk)
    assert native == python
    without_paths = feed_both(p, chunk, paths=False)
    assert without_paths[1] == without_paths[0]
    return python


@contextlib.contextmanager
def index_thresholds(index_at: int, max_cells: int):
    """Both trackers index a buffer's live writes past ``index_at`` (read at construction by
    the compiled tracker, at each write by the Python one)."""
    saved = isa.INDEX_AT, isa.MAX_CELLS
    isa.INDEX_AT, isa.MAX_CELLS = index_at, max_cells
    try:
        yield
    finally:
        isa.INDEX_AT, isa.MAX_CELLS = saved


# ---------------------------------------------------------------------- real programs

@pytest.mark.parametrize("example", [e.name for e in EXAMPLES])
def test_every_example(example):
    target = load_target(next(e.target for e in EXAMPLES if e.name == example))
    module = parse_text(example_path(example).read_text(), f"{example}.mlir")
    p = compile_trace(lower_module(module, target))
    assert_same(p)
    assert_same(p, chunk=7)


@pytest.mark.parametrize("trace", [ascend_gemm(400), ascend_gemm(50, back_edge=False),
                                   cuda_pipeline(500, stages=3), amd_lds_gemm(300)],
                         ids=["ascend", "ascend-racy", "cuda", "amd"])
def test_synthetic_traces(trace):
    bound, _, _ = assert_same(compile_trace(trace), chunk=64)
    assert bound[0] > 0


def _tiles_trace(statements: int, tiles: int, step: int):
    """Straight-line load/exp/store over ``tiles`` windows of 4 rows, ``step`` rows apart
    (``step`` 4: distinct tiles; 2: each window half-overlaps its neighbours)."""
    b = TraceBuilder(ascend_machine())
    rows = step * tiles + 4
    gm, out = (b.buffer(name, (rows, 16), "float16", "GM", True) for name in ("gm", "out"))
    ub = b.buffer("ub", (rows, 16), "float16", "UB")
    for s in range(statements):
        row = step * ((s * 7) % tiles)
        tile = b.tile(ub, (row, 0), (4, 16))
        b.op("tile.load", "MTE2", 41, [b.tile(gm, (row, 0), (4, 16)), tile])
        b.op("tile.exp", "V", 20 + s % 5, [tile, tile])
        b.op("tile.store", "MTE3", 41, [tile, b.tile(out, (row, 0), (4, 16))])
        if s % 50 == 49:
            b.op("tile.exp", "V", 3, [b.whole(ub), b.tile(ub, (0, 0), (4, 16))])
    return b.build()


@pytest.mark.parametrize("step", [4, 2, 3])
def test_many_distinct_and_overlapping_tiles_cross_the_index(step):
    p = compile_trace(_tiles_trace(600, 150, step))
    bound, _, _ = assert_same(p, chunk=100)
    assert bound == lower_bound(p)


def test_factory_and_helpers(monkeypatch):
    p = compile_trace(ascend_gemm(20))
    assert isinstance(new_bound_tracker(p), NativeBoundTracker)
    assert type(new_bound_tracker(p, pure=True)) is BoundTracker
    monkeypatch.setenv("TILESCHED_PURE_PYTHON", "1")
    assert type(new_bound_tracker(p)) is BoundTracker
    python = lower_bound(p)
    monkeypatch.delenv("TILESCHED_PURE_PYTHON")
    assert lower_bound(p) == python


# ---------------------------------------------------------------------- random accesses

BUFFER_IDS = [0, 1, 5, 2 ** 40, 2 ** 40 + 5, 3 * 2 ** 40 + 1, 2 ** 62]
ONE_GROUP = [Agent(0, "S", "issuer", "S", 0), Agent(1, "V", "queued", "V", 0),
             Agent(2, "M", "queued", "M", 0, pipelined=True), Agent(3, "MTE2", "queued", "MTE2", 0)]
TWO_GROUPS = [Agent(0, "S", "issuer", "S", 0), Agent(1, "S@1", "issuer", "S", 1),
              Agent(2, "V", "queued", "V", 0), Agent(3, "M", "queued", "M", 0, pipelined=True),
              Agent(4, "MTE2", "queued", "MTE2", 0), Agent(5, "V@1", "queued", "V", 1)]
FED = {1: [[1, 2, 3]], 2: [[2, 3, 4], [5, 3]]}  # the unit agents each issuer enqueues to


@st.composite
def windows(draw, ndim: int, tile: int):
    """A region: grid-aligned tiles, windows straddling them, or any (even empty or inverted)."""
    dims = []
    for _ in range(ndim):
        kind = draw(st.sampled_from(["tile", "tile", "straddle", "span", "any"]))
        k = draw(st.integers(0, 9))
        if kind == "tile":
            dims.append((k * tile, (k + 1) * tile))
        elif kind == "straddle":
            dims.append((k * tile + tile // 2, (k + 1) * tile + tile // 2))
        elif kind == "span":
            dims.append((k * tile, (k + draw(st.integers(2, 6))) * tile))
        else:
            lo = draw(st.integers(-3, 40))
            dims.append((lo, lo + draw(st.integers(-1, 14))))
    return tuple(dims)


@st.composite
def random_programs(draw):
    issuers = draw(st.integers(1, 2))
    count = draw(st.integers(1, 4))
    buffers = draw(st.lists(st.sampled_from(BUFFER_IDS), min_size=count, max_size=count,
                            unique=True))
    ndims = {buf: draw(st.integers(1, 3)) for buf in buffers}
    tile = draw(st.integers(1, 6))
    code = [[] for _ in range(issuers)]
    for op in range(draw(st.integers(0, 120))):
        accesses = []
        for _ in range(draw(st.integers(0, 3))):
            buf = draw(st.sampled_from(buffers))
            region = draw(windows(ndims[buf], tile))
            accesses.append((buf, region, draw(st.booleans()), (region, f"t:{op}")))
        item = (TILE, draw(st.integers(0, 60)), op, tuple(accesses))
        issuer = draw(st.integers(0, issuers - 1))
        kind = draw(st.sampled_from(["enq", "enq", "inline", "set"]))
        if kind == "inline":
            code[issuer].append((INLINE, 0, item))
        elif kind == "enq":
            code[issuer].append((ENQ, draw(st.sampled_from(FED[issuers][issuer])), item))
        else:
            code[issuer].append((ENQ, FED[issuers][issuer][0], (SET, 0, op, ())))
    agents = ONE_GROUP if issuers == 1 else TWO_GROUPS
    p = Program(agents, ["S"], code, [], [], FED[issuers], [None] * issuers)
    chunk = draw(st.integers(1, 40))
    thresholds = draw(st.sampled_from([(32, 64), (4, 8), (0, 1), (2, 64), (6, 2)]))
    return p, chunk, thresholds


@settings(max_examples=60, deadline=None)
@given(random_programs())
def test_random_accesses(case):
    p, chunk, (index_at, max_cells) = case
    with index_thresholds(index_at, max_cells):
        assert_same(p, chunk)


@st.composite
def degenerate_programs(draw):
    """One issuer, one 1-2 dimensional buffer, small windows that are often empty or inverted
    (the Python index finds those only through the cells they happen to cover)."""
    ndim = draw(st.integers(1, 2))
    window = st.tuples(*[st.integers(0, 12).flatmap(
        lambda lo: st.integers(-2, 4).map(lambda size, lo=lo: (lo, lo + size)))] * ndim)
    code = []
    for op in range(draw(st.integers(1, 60))):
        accesses = tuple((7, region, write, None) for region, write in
                         draw(st.lists(st.tuples(window, st.booleans()), min_size=1, max_size=2)))
        code.append((ENQ, 1, (TILE, draw(st.integers(0, 9)), op, accesses)))
    p = Program(ONE_GROUP, ["S"], [code], [], [], FED[1], [None])
    return p, draw(st.sampled_from([(0, 1), (0, 64), (1, 3), (3, 2)]))


@settings(max_examples=80, deadline=None)
@given(degenerate_programs())
def test_random_degenerate_windows(case):
    p, (index_at, max_cells) = case
    with index_thresholds(index_at, max_cells):
        assert_same(p, chunk=1)


# ---------------------------------------------------------------------- bad input

def test_malformed_instructions_raise_instead_of_crashing():
    p = compile_trace(ascend_gemm(2))
    tracker = NativeBoundTracker(p)
    for bad in ([(ENQ,)], [(ENQ, 2, (TILE, 5, 0, ((0, "rows", True, None),)))],
                [(ENQ, 2, (TILE, 5, 0, ((0, ((0, 1, 2),), True, None),)))],
                [(ENQ, 2, (TILE, 5, 0, ((0, ((0, 1),), True),)))], [(INLINE, 99, (TILE, 1))]):
        with pytest.raises((TypeError, IndexError)):
            tracker.feed(0, bad)
    with pytest.raises(IndexError):
        tracker.feed(5, [])
    tracker.feed(0, [(ENQ, 2, (TILE, 5, 0, ((0, ((0, 4),), True, None),)))])
    with pytest.raises(ValueError, match="2-dimensional region"):
        tracker.feed(0, [(ENQ, 2, (TILE, 5, 0, ((0, ((0, 4), (0, 4)), False, None),)))])
    with pytest.raises(OverflowError):
        tracker.feed(0, [(ENQ, 2, (TILE, 5, 0, ((0, ((0, 2 ** 70),), True, None),)))])
