"""The kernels run-cpp's coverage tests (and benchmarks/bench_emit.py) compile and run.

- every bundled Ascend example, each after the three :data:`PIPELINES`;
- the fusion tests' random vector kernels (tests/transforms/fusion_kernels.py), drawn
  derandomized, keeping those whose output does not depend on on-chip memory read before it is
  written (tilesched's semantics give such memory seeded garbage; the kernel reads whatever the
  address plan left there, so the two can only be compared when nothing reads it), each after
  the three pipelines.
"""

from __future__ import annotations

import pathlib
import sys
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.commands.run_cpp import Prepared, prepare, transform
from tilesched.diagnostics import TileschedError
from tilesched.examples import ALL_EXAMPLES, example_path
from tilesched.ir import verify_module
from tilesched.ir.text import parse_text
from tilesched.ir.tile import FUSION_GROUP
from tilesched.sim.lowering.lower import lower_module
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

PIPELINES = ("insert-sync", "fuse-tiles,insert-sync",
             "modulo-schedule,software-pipeline,insert-sync")
FUSION_KERNELS = 6


# Examples too large to compile and run quickly at -O0 (a 256 x 512 x 2048 GEMM: ~10 s per run
# on the CPU simulator at -O1): the tests run them in a group of their own, at -O1.
LARGE = ("ascend_gemm_db", "ascend_gemm_db_free")
# Hand-synchronized loops software-pipeline refuses by design (sync ops in the loop have no
# stage): these pairs must be refused, at the pass, with a located error.
REFUSED = {("ascend_mix_gemm_epilogue", PIPELINES[2]), ("ascend_mix_flash_attention", PIPELINES[2])}


def example_cases(names: list[str] | None = None, seed: int = 0,
                  refused: list[tuple[str, str, str]] | None = None) -> list[Prepared]:
    """Every Ascend example (or those in ``names``) after each of :data:`PIPELINES`, and as
    written when it has sync ops of its own. A pipeline that refuses an example (bad input for
    one of its passes, e.g. multi-buffering that does not fit L1) is appended to ``refused`` as
    (example, pipeline, message) instead."""
    out = []
    for example in ALL_EXAMPLES:
        if not example.target.startswith("ascend") or (names and example.name not in names):
            continue
        target = load_target(example.target)  # ascend-a2-mix: per-core sections, cross flags
        path = str(example_path(example.name))
        pipelines = PIPELINES
        if any(line.lstrip().startswith("sync.") for line in
               example_path(example.name).read_text().splitlines()):
            pipelines = ("", *PIPELINES)
        for pipeline in pipelines:
            try:
                original, transformed = transform(path, target, pipeline)
            except TileschedError as err:
                if (example.name, pipeline) in REFUSED and err.loc is not None:
                    continue
                if refused is None:
                    raise
                refused.append((example.name, pipeline, str(err)))
                continue
            assert (example.name, pipeline) not in REFUSED, f"{example.name} [{pipeline}] ran"
            out.append(prepare(original, transformed, target,
                               f"{example.name} [{pipeline or 'as written'}]", {}, seed,
                               example.name))
    return out


CARRIED = '''
func.func @carried(%x: memref<3x16x32xf32, "GM">, %y: memref<3x16x32xf32, "GM">) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %acc = memref.alloc() : memref<16x32xf32, "UB">
  %u = memref.alloc() : memref<16x32xf32, "UB">
  %o = memref.alloc() : memref<16x32xf32, "UB">
  %t = memref.alloc() : memref<16x32xf32, "UB">
  tile.fill %acc {value = 0.0 : f32} : memref<16x32xf32, "UB">
  scf.for %i = %c0 to %c3 step %c1 {
    %xs = tile.slot %x[%i] : memref<3x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    %ys = tile.slot %y[%i] : memref<3x16x32xf32, "GM"> -> memref<16x32xf32, "GM">
    tile.load %xs, %u : memref<16x32xf32, "GM">, memref<16x32xf32, "UB">
    tile.add %acc, %u, %acc : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
    tile.copy %acc, %o : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
    tile.store %o, %ys : memref<16x32xf32, "UB">, memref<16x32xf32, "GM">
    tile.fill %t {value = 2.0 : f32} : memref<16x32xf32, "UB">
    tile.mul %t, %t, %t : memref<16x32xf32, "UB">, memref<16x32xf32, "UB">, memref<16x32xf32, "UB">
  }
  func.return
}
'''


def extra_cases(seed: int = 0) -> list[Prepared]:
    """A running sum kept in UB across the iterations of a loop, touched only by V, beside a
    V-only temporary used later in the body: the sum's bytes must stay its own for the whole
    loop (the address plan's loop rule), else the temporary overwrites it between iterations.
    Plus tests/lit/emit_cpp/event_operand.mlir as written (flags with computed event ids)."""
    target = load_target("ascend-a2")
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "carried.mlir"
        path.write_text(CARRIED)
        for pipeline in PIPELINES:
            original, transformed = transform(str(path), target, pipeline)
            out.append(prepare(original, transformed, target, f"loop-carried UB sum [{pipeline}]",
                               {}, seed, "carried"))
    event = pathlib.Path(__file__).resolve().parents[1] / "lit" / "emit_cpp" / "event_operand.mlir"
    original, transformed = transform(str(event), target, "")
    out.append(prepare(original, transformed, target, "per-slot event ids [as written]", {}, seed,
                       "event_operand"))
    return out


def _generator():
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "transforms"))
    import fusion_kernels

    return fusion_kernels


def fusion_texts(count: int = FUSION_KERNELS) -> list[str]:
    """``count`` distinct random fusion-test kernels that read no on-chip memory before writing
    it (derandomized: the same kernels on every run)."""
    vector_kernel = _generator().vector_kernel
    target = load_target("ascend-a2")
    found: list[str] = []

    @settings(max_examples=400, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.booleans().flatmap(lambda loop: vector_kernel(loop=loop)))
    def collect(text: str) -> None:
        loops = sum("scf.for" in t for t in found)
        text = initialized(text)
        if len(found) >= count or text in found or ("scf.for" in text) != (loops < count // 2):
            return
        body = text.split("%ys = ", 1)[1]
        if body.count(" tile.") >= 8 and _fused(text, target) and _defined_reads(text, target):
            found.append(text)

    collect()
    return found


def fusion_cases(count: int = FUSION_KERNELS, seed: int = 0) -> list[Prepared]:
    target = load_target("ascend-a2")
    out = []
    for k, text in enumerate(fusion_texts(count)):
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / f"fusion{k}.mlir"
            path.write_text(text)
            for pipeline in PIPELINES:
                original, transformed = transform(str(path), target, pipeline)
                out.append(prepare(original, transformed, target, f"fusion kernel {k} [{pipeline}]",
                                   {}, seed, f"fusion{k}"))
    return out


def initialized(text: str) -> str:
    """The kernel with every on-chip tile given data first: each tile loaded from %z, each row
    the row max / sum of one (the generator leaves them unwritten: their contents would be the
    seeded garbage of tilesched's semantics in one run and the plan's leftovers in the other)."""
    g = _generator()
    GM_TILE, TILE, ROW, TILES, ROWS = g.GM_TILE, g.TILE, g.ROW, g.TILES, g.ROWS  # noqa: N806
    first = f"  tile.load %z, %t0 : {GM_TILE}, {TILE}\n"
    extra = [f"  tile.load %z, %t{k} : {GM_TILE}, {TILE}\n" for k in range(1, TILES)]
    extra += [f"  tile.{('rowmax', 'rowsum')[k % 2]} %t{k}, %r{k} : {TILE}, {ROW}\n"
              for k in range(ROWS)]
    return text.replace(first, first + "".join(extra), 1)


def _fused(text: str, target) -> bool:
    """Whether fuse-tiles forms a group of at least 3 ops in the kernel."""
    module = parse_text(text)
    verify_module(module, target)
    run_pipeline(module, parse_pass_pipeline("fuse-tiles"), TileContext(target))
    groups: dict[int, int] = {}
    for op in module.walk():
        if FUSION_GROUP in op.attributes:
            group = op.attributes[FUSION_GROUP].value.data
            groups[group] = groups.get(group, 0) + 1
    return any(size >= 3 for size in groups.values())


def _defined_reads(text: str, target) -> bool:
    """Whether every on-chip element the kernel's tile ops read was written before (calls are
    opaque and read nothing the output depends on)."""
    module = parse_text(text)
    verify_module(module, target)
    trace = lower_module(module, target)
    written = {b.id: np.zeros(b.shape, dtype=bool) for b in trace.buffers if not b.is_argument}
    for op in next(iter(trace.programs.values())):
        if op.is_sync or op.name == "tile.call":
            continue
        for access, is_write in op.accesses():
            if access.buffer not in written:
                continue
            region = tuple(slice(lo, hi) for lo, hi in access.region)
            if is_write:
                written[access.buffer][region] = True
            elif not written[access.buffer][region].all():
                return False
    return True


