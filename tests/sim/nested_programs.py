"""Random loop nests for the steady-state differential tests (issue 24).

A program is 2 or 3 nested ``scf.for`` loops (trip counts up to a few hundred), each level a few
tile ops over multi-buffered slots (``slot(i % slots)``) and moving global tiles, some inside
``scf.if`` on the level's induction variable (``i == c``, ``i < c``, ``i >= c``, ``i % m == r``),
on several units of one of the three families; synchronized by one of the sync passes
(insert-sync; software-pipeline + insert-sync; warp-pipeline; fuse-tiles + insert-sync); and
sometimes made faulty afterwards (one sync op removed, or a late wait / set on the induction
variable), so races, deadlocks and violations are compared too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hypothesis import strategies as st

from tilesched.diagnostics import TileschedError
from tilesched.ir.dsl import Kernel
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

TARGETS = {"ascend": "ascend-a2", "cuda": "cuda-sm80", "amd": "amd-gfx950"}
PASSES = {
    "ascend": ["insert-sync", "software-pipeline,insert-sync", "fuse-tiles,insert-sync"],
    "cuda": ["insert-sync", "software-pipeline,insert-sync"],
    "amd": ["insert-sync", "warp-pipeline", "software-pipeline,insert-sync"],
}
ITEMS = ["load", "compute", "compute", "store", "if", "fixed", "feedback"]
CONDITIONS = ["eq", "lt", "ge", "mod"]
MAX_ITERATIONS = 1500  # innermost iterations of the whole nest (full simulation pays for each)


@dataclass(frozen=True)
class Nest:
    family: str
    passes: str
    trips: tuple  # per level, outermost first
    slots: int
    bodies: tuple  # per level: items before the inner loop, items after it
    picks: tuple  # small integers the items draw their choices from
    fault: str  # "", "drop" (one sync op removed), "late-wait", "late-set"
    fault_at: tuple  # (index of the dropped sync op, or the late iteration, level)

    @property
    def target(self) -> str:
        return TARGETS[self.family]


@st.composite
def nests(draw, families=("ascend", "cuda", "amd")) -> Nest:
    family = draw(st.sampled_from(families))
    depth = draw(st.integers(2, 3))
    trips = []
    budget = MAX_ITERATIONS
    # half the nests give every level room to be extrapolated (>= 10 iterations): the case
    # where a loop nested in an extrapolated loop is extrapolated too
    least = 10 if draw(st.booleans()) and 10 ** depth <= budget else 1
    for level in range(depth):
        inner = 10 ** (depth - 1 - level) if least > 1 else 1
        most = max(least, min(300, budget // inner if level == depth - 1 else budget // 4,
                              budget // inner))
        low = min(most, max(least, 6))
        n = draw(st.one_of(st.integers(least, low), st.integers(low, most)))
        trips.append(n)
        budget = max(1, budget // n)
    bodies = []
    for _ in range(depth):
        before = draw(st.lists(st.sampled_from(ITEMS), min_size=0, max_size=4))
        after = draw(st.lists(st.sampled_from(ITEMS), min_size=0, max_size=3))
        bodies.append((tuple(before), tuple(after)))
    if not any(bodies[-1]):  # the innermost loop does some work
        bodies[-1] = (("load", "compute", "store"), ())
    fault = draw(st.sampled_from(["", "", "", "drop", "late-wait", "late-set"]))
    fault_at = (draw(st.integers(0, 400)), draw(st.integers(0, depth - 1)))
    return Nest(family, draw(st.sampled_from(PASSES[family])), tuple(trips),
                draw(st.integers(1, 3)), tuple(bodies),
                tuple(draw(st.lists(st.integers(0, 11), min_size=16, max_size=16))),
                fault, fault_at)


def build(nest: Nest):
    """The synchronized (and maybe faulty) module, or ``None`` when the pass refuses it."""
    module = _kernel(nest).module()
    target = load_target(nest.target)
    try:
        run_pipeline(module, parse_pass_pipeline(nest.passes), TileContext(target))
    except TileschedError:
        return None
    if nest.fault == "drop":
        syncs = [op for op in module.walk() if op.name.startswith("sync.")
                 and op.name not in ("sync.setprio", "sync.sched_barrier")]
        if syncs:
            victim = syncs[nest.fault_at[0] % len(syncs)]
            victim.detach()
            victim.erase()
    return module


class _Builder:
    def __init__(self, nest: Nest):
        self.nest = nest
        self.k = Kernel("k", target=nest.target)
        self.count = 0
        self.order = 0
        self.ivs = []
        self.grid = nest.picks[0] % 3 != 0  # moving tiles indexed per level (else one flat index)
        k, family, trips = self.k, nest.family, nest.trips
        space = {"ascend": ("GM", "UB", "UB"), "cuda": ("global", "shared", "local"),
                 "amd": ("global", "LDS", "local")}[family]
        if self.grid:  # g[i0][i1 * 16][i_last * 16]: each level's index in its own dimension
            shape = (trips[0] + 1, 16 * (trips[1] + 1) if len(trips) == 3 else 16,
                     16 * (trips[-1] + 1))
        else:
            shape = (16 * (math.prod(trips) + 2), 16)
        self.g = k.arg("g", shape, "f16", space[0])
        self.o = k.arg("o", shape, "f16", space[0])
        self.h = k.arg("h", (32, 16), "f16", space[0])
        self.buf = k.alloc((nest.slots, 16, 16), "f16", space[1], name="buf")
        self.tmp = k.alloc((16, 16), "f16", space[2], name="tmp")
        self.acc = k.alloc((16, 16), "f32" if family == "amd" else "f16", space[2], name="acc")
        self.fixed = k.alloc((16, 16), "f16", space[1], name="fixed")

    def pick(self) -> int:
        self.count += 1
        return self.nest.picks[self.count % len(self.nest.picks)]

    def tile(self, buf):
        """The global tile of the current iteration (moves each iteration of every level)."""
        ivs, depth = self.ivs, len(self.nest.trips)
        if self.grid:
            row = ivs[1] * 16 if depth == 3 and len(ivs) > 1 else 0
            col = ivs[depth - 1] * 16 if len(ivs) == depth else 0
            return buf.slot(ivs[0]).view((row, col), (16, 16))
        flat = 0
        for level, iv in enumerate(ivs):
            flat = iv if level == 0 else flat * self.nest.trips[level] + iv
        return buf.view((flat * 16, 0), (16, 16))

    def sched(self, stage: int | None) -> dict:
        """software-pipeline annotations of an op of the pipelined loop (else none)."""
        if stage is None:
            return {}
        self.order += 1
        return {"stage": stage, "order": self.order}

    def item(self, what: str, level: int, pipelined: bool) -> None:
        k, nest = self.k, self.nest
        iv = self.ivs[-1]
        pick = self.pick()
        slot = self.buf.slot(iv % nest.slots) if pick % 3 else self.buf.slot(0)
        if what == "load":
            k.load(self.tile(self.g), slot, **self.sched(0 if pipelined else None))
        elif what == "fixed":  # a tile every iteration reuses (WAR / WAW across iterations)
            k.load(self.h.view((pick % 2, 0), (16, 16)), self.fixed,
                   **self.sched(0 if pipelined else None))
        elif what == "feedback":  # written back where "fixed" reads: a chain across units
            k.store(self.tmp, self.h.view((pick % 2, 0), (16, 16)),
                    **self.sched(2 if pipelined else None))
        elif what == "compute":
            self.compute(slot, pick, self.sched(1 if pipelined else None))
        elif what == "store":
            src = self.tmp if pick % 2 or nest.family == "amd" else self.acc
            k.store(src, self.tile(self.o), **self.sched(2 if pipelined else None))
        elif what == "if":
            kind = CONDITIONS[pick % len(CONDITIONS)]
            c = self.pick() * (1 + self.nest.trips[level] // 12)
            cond = (k.cmp("eq", iv % 3, pick % 3) if kind == "mod" else
                    k.cmp({"eq": "eq", "lt": "slt", "ge": "sge"}[kind], iv, c))
            with k.if_(cond, **self.sched(1 if pipelined else None)):
                self.compute(slot, self.pick(), {})

    def compute(self, slot, pick: int, opts: dict) -> None:
        k, family = self.k, self.nest.family
        if family == "ascend":
            if pick % 2:
                k.add(slot, self.acc, self.acc, **opts)
            else:
                k.exp(slot, self.tmp, **opts)
        elif family == "cuda":
            if pick % 2:
                k.copy(slot, self.tmp, **opts)
            else:
                k.add(self.tmp, self.acc, self.acc, **opts)
        elif pick % 2:
            k.copy(slot, self.tmp, **opts)
        else:
            k.matmul(self.tmp, self.tmp, self.acc, accumulate=True, **opts)


# one call site per level, so each loop has its own location (reports name loops by location)
_RANGES = [
    lambda k, trips, name: k.range(trips, name=name),
    lambda k, trips, name: k.range(trips, name=name),
    lambda k, trips, name: k.range(trips, name=name),
]


def _kernel(nest: Nest) -> Kernel:
    b = _Builder(nest)
    k = b.k
    depth = len(nest.trips)
    pipelined = "software-pipeline" in nest.passes
    warp = nest.passes == "warp-pipeline"
    fused = nest.passes.startswith("fuse-tiles")

    def level(n: int) -> None:
        before, after = nest.bodies[n]
        innermost = n == depth - 1
        for iv in _RANGES[n](k, nest.trips[n], f"i{n}"):
            b.ivs.append(iv)
            if warp and innermost:
                with k.stage("s0"):
                    items(before, n, False)
                with k.stage("s1"):
                    items(after, n, False)
            else:
                items(before, n, pipelined and innermost)
                if not innermost:
                    level(n + 1)
                items(after, n, pipelined and innermost)
            late(n)
            b.ivs.pop()

    def items(seq, n, staged) -> None:
        for index, what in enumerate(seq):
            if fused and what == "compute" and index % 2 == 0:
                with k.fuse():
                    b.item("compute", n, staged)
                    b.item("compute", n, staged)
            else:
                b.item(what, n, staged)

    def late(n: int) -> None:
        at, where = nest.fault_at
        if nest.fault not in ("late-wait", "late-set") or where != n or nest.family != "ascend":
            return
        with k.if_(k.cmp("eq", b.ivs[-1], at % (nest.trips[n] + 1))):
            if nest.fault == "late-wait":
                k.wait_flag("MTE3", "V", 5)
            else:
                k.set_flag("MTE2", "MTE3", 6)

    level(0)
    return k
