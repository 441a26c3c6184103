"""Property tests on random programs (hypothesis).

- A program with a full barrier after every op is race-free, for every sync family.
- Synchronizing every cross-unit dependence with a flag pair is race-free and deadlock-free.
- Deleting one sync unit (a flag pair, or a barrier_all) from a correct program yields a race, or
  the checker finds it redundant, and then the program computes the reference result under
  random op durations (race freedom means the timing cannot change the numbers).
- In a minimal program (no sync unit can go) every deletion yields a race.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.sim.functional import equivalent
from tilesched.sim.run import simulate
from tilesched.sim.synthetic import amd_machine, ascend_machine, cuda_machine
from tilesched.sim.trace import Access, MachineModel, Trace, TraceBuilder, UnitSpec, regions_overlap

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
UNITS = ("MTE2", "MTE1", "V", "M", "MTE3")
BUFFERS = 3
REGIONS = {"half": (((0, 2), (0, 8)), ((2, 4), (0, 8))), "full": (((0, 4), (0, 8)),)}
KINDS = ("tile.copy", "tile.add", "tile.adds", "tile.max")


@dataclass(frozen=True)
class Op:
    """One random tile op: where it runs, what it computes, its operands and duration."""

    unit: str
    kind: str
    operands: tuple  # (buffer, region) for memrefs, floats for scalars; destination last
    duration: int


@st.composite
def ops(draw, units=UNITS) -> Op:
    kind = draw(st.sampled_from(KINDS))
    shape = draw(st.sampled_from(sorted(REGIONS)))
    mem = st.tuples(st.integers(0, BUFFERS - 1), st.sampled_from(REGIONS[shape]))
    inputs = {"tile.copy": 1, "tile.add": 2, "tile.adds": 1, "tile.max": 2}[kind]
    operands = [draw(mem) for _ in range(inputs)]
    if kind == "tile.adds":
        operands.append(0.25)
    operands.append(draw(mem))
    return Op(draw(st.sampled_from(units)), kind, tuple(operands), draw(st.integers(1, 40)))


def programs(units=UNITS, size=8):
    return st.lists(ops(units), min_size=1, max_size=size)


def _accesses(op: Op) -> list[tuple[int, tuple, bool]]:
    mems = [o for o in op.operands if isinstance(o, tuple)]
    return [(b, r, False) for b, r in mems[:-1]] + [(mems[-1][0], mems[-1][1], True)]


def _conflict(a: Op, b: Op) -> bool:
    return any(ba == bb and (wa or wb) and regions_overlap(ra, rb)
               for ba, ra, wa in _accesses(a) for bb, rb, wb in _accesses(b))


def _emit(builder: TraceBuilder, bufs, op: Op, duration: int | None = None, **extra) -> None:
    operands = [builder.tile(bufs[o[0]], (o[1][0][0], 0), (o[1][0][1] - o[1][0][0], 8))
                if isinstance(o, tuple) else o for o in op.operands]
    builder.op(op.kind, op.unit, op.duration if duration is None else duration, operands, **extra)


def build(machine: MachineModel, program: list[Op], before=None, after=None, durations=None,
          replicate=False) -> Trace:
    """A trace of ``program``; ``before(k)`` / ``after(k)`` list sync ops around op k."""
    b = TraceBuilder(machine)
    bufs = [b.buffer(f"b{k}", (4, 8), "float32", _space(machine), True) for k in range(BUFFERS)]
    for k, op in enumerate(program):
        for name, props in (before(k) if before else []):
            b.op(name, props=props)
        _emit(b, bufs, op, None if durations is None else durations[k])
        for name, props in (after(k) if after else []):
            b.op(name, props=props)
    return b.build(replicate=replicate)


def _space(machine: MachineModel) -> str:
    return {"cuda-sm80": "shared", "amd-gfx950": "LDS"}.get(machine.name, "UB")


def flag_pairs(program: list[Op]) -> list[tuple[int, int]]:
    """Every (producer, consumer) pair of conflicting ops on different units."""
    return [(i, j) for j in range(len(program)) for i in range(j)
            if program[i].unit != program[j].unit and _conflict(program[i], program[j])]


def flagged(program: list[Op], pairs: list[tuple[int, int]], durations=None) -> Trace:
    """set_flag right after the producer, wait_flag right before the consumer, unique events."""
    machine = ascend_machine()
    machine.event_limit = None

    def props(n):
        i, j = pairs[n]
        return {"src": program[i].unit, "dst": program[j].unit, "event": n}

    return build(machine, program,
                 before=lambda k: [("sync.wait_flag", props(n)) for n, p in enumerate(pairs) if p[1] == k],
                 after=lambda k: [("sync.set_flag", props(n)) for n, p in enumerate(pairs) if p[0] == k],
                 durations=durations)


def barriered(program: list[Op], keep: set[int], durations=None) -> Trace:
    """barrier_all after each op in ``keep``."""
    return build(ascend_machine(), program, after=lambda k: [("sync.barrier_all", {})] if k in keep else [],
                 durations=durations)


# ---------------------------------------------------------------- barrier after every op


@SETTINGS
@given(programs())
def test_barrier_all_after_every_op_is_race_free(program):
    result = simulate(barriered(program, set(range(len(program)))))
    assert result.ok and not result.races


@SETTINGS
@given(programs(units=("T", "ASYNC0")))
def test_wait_group_after_every_async_copy_is_race_free(program):
    def sync(k):
        if program[k].unit == "ASYNC0":
            return [("sync.commit_group", {"queue": 0}), ("sync.wait_group", {"queue": 0, "pending": 0})]
        return []

    trace = build(cuda_machine(), program, after=sync)
    for op in trace.programs["T"]:
        if op.unit == "ASYNC0":
            op.async_queue = 0
    assert simulate(trace).ok


@SETTINGS
@given(programs(units=("SIMD", "LDS")))
def test_local_barrier_after_every_op_is_race_free_for_two_groups(program):
    trace = build(amd_machine(), program, after=lambda k: [("sync.barrier", {"local": True})],
                  replicate=True)
    for ops_ in trace.programs.values():
        for op in ops_:
            op.lds = op.unit == "LDS"
    assert simulate(trace).ok


# ---------------------------------------------------------------- flags: insertion and deletion


@SETTINGS
@given(programs())
def test_a_flag_pair_per_dependence_is_correct(program):
    result = simulate(flagged(program, flag_pairs(program)))
    assert result.ok


@SETTINGS
@given(programs(), st.data())
def test_deleting_a_flag_pair_races_or_is_redundant(program, data):
    pairs = flag_pairs(program)
    if not pairs:
        return
    drop = data.draw(st.integers(0, len(pairs) - 1))
    reduced = pairs[:drop] + pairs[drop + 1:]
    result = simulate(flagged(program, reduced))
    if not result.ok:
        assert result.races and not result.violations and result.deadlock is None
        return
    _assert_timing_independent(program, lambda d: flagged(program, reduced, d), data)


@SETTINGS
@given(programs(), st.data())
def test_deleting_a_barrier_races_or_is_redundant(program, data):
    keep = set(range(len(program)))
    drop = data.draw(st.sampled_from(sorted(keep)))
    result = simulate(barriered(program, keep - {drop}))
    if not result.ok:
        assert result.races
        return
    _assert_timing_independent(program, lambda d: barriered(program, keep - {drop}, d), data)


def _assert_timing_independent(program, make, data) -> None:
    """A program the checker calls race-free computes the reference under other durations."""
    reference = make(None)
    for _ in range(3):
        durations = data.draw(st.lists(st.integers(1, 60), min_size=len(program),
                                       max_size=len(program)))
        verdict = equivalent(reference, make(durations), seed=data.draw(st.integers(0, 9)))
        assert verdict.equivalent, verdict.mismatches


@SETTINGS
@given(programs())
def test_every_deletion_from_a_minimal_program_races(program):
    pairs = flag_pairs(program)
    for candidate in list(pairs):  # greedy minimization by the checker itself
        trial = [p for p in pairs if p != candidate]
        if simulate(flagged(program, trial)).ok:
            pairs = trial
    assert simulate(flagged(program, pairs)).ok
    for drop in range(len(pairs)):
        result = simulate(flagged(program, pairs[:drop] + pairs[drop + 1:]))
        assert result.races


def test_access_helpers_agree_with_the_trace():
    op = Op("V", "tile.add", ((0, REGIONS["half"][0]), (1, REGIONS["half"][1]), (0, REGIONS["full"][0])), 3)
    trace = build(ascend_machine(), [op])
    (traced,) = trace.programs["S"]
    assert [(a.buffer, a.region, w) for a, w in traced.accesses()] == _accesses(op)
    assert isinstance(traced.operands[0], Access)
    assert UnitSpec("queued").kind == "queued"
