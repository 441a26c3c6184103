"""The timing engine: executes a compiled program on its machine model (DESIGN.md §4).

Model. Every issuer walks its program in order. An op on a non-inline unit is *enqueued* (the
issuer spends ``issue_cost`` cycles and goes on); each unit instance runs its queue in order, one op
at a time, from ``max(unit free, op enqueued, what the op waits for)``. An inline op runs on the
issuer, which waits for it; inline units shared by several issuer groups serve requests in time
order (ties: higher ``setprio`` priority, then the leading group). Pipelined units start an op one
cycle after the previous one started, so their own ops overlap; ``set_flag`` and ``pipe_barrier``
drain them.

Algorithm. Apart from arbitration of shared inline units, every time in this model is a max-plus
expression of earlier times (flags are matched by count: the k-th wait consumes the k-th set;
barriers by count; groups by commit order), so the engine need not process events in global time
order. It advances each agent as far as it can (a worklist of agents, each run until it blocks on
something not yet computed) and wakes it when that something is produced. This makes a unit's run
of a thousand ops a tight loop over a list, with no event heap. Shared inline units are handled
conservatively (an issuer may claim one only when no other group can still request it earlier);
when nothing else can move, the earliest waiting request goes. If nothing can move and work is
left, the program is deadlocked and every blocked agent says what it waits for.

The same pass maintains vector clocks (``happens_before.py``): an enqueued op inherits the
snapshot of what its issuer had *finished* when issuing it, a wait joins the clock its set exported,
``barrier_all`` / ``wait_group`` / ``local`` barriers join the clocks of the ops they wait for, and
barrier rendezvous joins all arrivals. Because an agent only proceeds after its dependencies were
processed, the engine feeds the race detector a linear extension of happens-before.

Streaming. Issuers fetch their instructions chunk by chunk from the program's source; units keep
only their pending queue; flags keep only unconsumed sets (``flags.py``); the bound is computed as
chunks arrive (``critical_path.py``). Memory follows what is live, not the length of the run.
The walks live in ``issuers.py`` and ``units.py``; this module holds the state and the driver.
"""

from __future__ import annotations

import os
from collections import deque

from tilesched.gc_pause import paused_gc
from tilesched.sim.critical_path import new_bound_tracker
from tilesched.sim.flags import FlagTable
from tilesched.sim.happens_before import RaceDetector, RaceSide
from tilesched.sim.issuers import IssuerWalk
from tilesched.sim.outcome import build_result, native_result
from tilesched.sim.program import Program, compile_trace
from tilesched.sim.result import Findings, SimResult
from tilesched.sim.steady import SteadyState
from tilesched.sim.trace import Trace
from tilesched.sim.units import PipeState, UnitWalk

try:  # the compiled core (native_engine.pyx); absent when it was not built
    from tilesched.sim import native_engine
except ImportError:  # pragma: no cover - depends on the install
    native_engine = None

DEFAULT_FLOOR_EVERY = 1 << 14  # worklist rounds between live-event sweeps


class Engine(IssuerWalk, UnitWalk):
    """One simulation of a compiled program; :meth:`run` returns a :class:`SimResult`."""

    def __init__(self, program: Program, check_races: bool = True, record: bool = False,
                 bound: bool = True, steady: bool = False, replay: bool = True):
        self.p = p = program
        self.machine = p.machine
        self.issue_cost = p.machine.issue_cost
        self.findings = Findings()
        for kind, detail in p.static_violations:
            self.findings.add(kind, detail)
        self._init_agents()
        self._init_issuers()
        self.flags = FlagTable(p, self.findings, record)
        # steady-state detection advances the Python tracker's internals (advance_path)
        self.bound = new_bound_tracker(p, pure=steady) if bound else None
        self.records = [] if record else None
        self.syncs = [] if record else None  # every executed sync op, when recording
        self.barrier_log: dict | None = {} if record else None
        self.detector = None
        if check_races:
            self.detector = RaceDetector(self._describe, p.buffer_label, self._live_views,
                                         p.memory.race_free)
        self.steady = None
        self.progress = None  # an object with tick(engine), e.g. report.progress.SimProgress
        self.awaited = self.await_wins = None
        if steady and not record and hasattr(p, "jump"):
            self.steady = SteadyState(self, p)
            self.awaited, self.await_wins = set(), set()
        elif replay:
            _replay_periodic_iterations(p)

    def _init_agents(self) -> None:
        """Per-agent arrays (indexed by agent): time, epoch, clock, queue, marks."""
        n = len(self.p.agents)
        self.clock = [0] * n
        self.seq = [0] * n
        self.vc = [(0,) * n for _ in range(n)]
        self.items = [[] for _ in range(n)]
        self.avail = [[] for _ in range(n)]
        self.ivc = [[] for _ in range(n)]
        self.head = [0] * n
        self.base = [0] * n
        self.last_iv = [None] * n
        self.busy = [0] * n
        self.avail_wins = [0] * n  # ops whose start the issuer's enqueue time decided
        self.watch = [[] for _ in range(n)]
        self.marks = [deque() for _ in range(n)]  # group-commit counts not reached yet
        self.marked = [{} for _ in range(n)]  # count -> (end time, exported clock)
        self.groups = [[] for _ in range(n)]  # committed group counts (the latest ones)
        self.group_base = [0] * n
        self.pipe = {a.index: PipeState() for a in self.p.agents if a.pipelined}
        self.dead: set[int] = set()  # unit agents blocked for good (steady.py; never in --full)
        self.inwl = [False] * n
        self.worklist: deque[int] = deque()
        self.sync_ops = 0
        self.tile_ops = 0

    def _init_issuers(self) -> None:
        """Per-issuer state: program position, barriers, priority, shared inline units."""
        p = self.p
        issuers = self.n_issuers = p.issuer_count
        self.sources = [p.chunks(i) for i in range(issuers)]
        self.code: list[list] = [[] for _ in range(issuers)]
        self.pc = [0] * issuers
        self.snap = [None] * issuers
        self.done = [False] * issuers
        self.prio = [0] * issuers
        self.block: list[tuple | None] = [None] * issuers
        self.deferred: deque[int] = deque()
        self.stepped_aside = [False] * issuers  # deferred: wakes are ignored until resumed
        self.passing = [False] * issuers
        self.arb: dict[int, int] = {}
        self.forced = -1
        self.res_free = [0] * len(p.inline_units)
        self.res_busy = [0] * len(p.inline_units)
        self.bar_count = [0] * issuers
        self.bar_wait: list[int | None] = [None] * issuers
        # per-wave LDS completion (issuers.py): LDS agents, their ops not yet awaited
        self.per_wave = [False] * len(p.agents)
        for lds in p.lds_agent:
            if lds is not None:
                self.per_wave[lds] = True
        self.lds_out: list[list[tuple]] = [[] for _ in range(issuers)]
        self.first_private = p.virtual_stride or len(p.buffer_names)
        self.arrivals: dict[int, dict[int, tuple]] = {}
        self.released: dict[int, tuple] = {}
        self.barrier_left: dict[int, int] = {}

    # ------------------------------------------------------------------ driver

    def push(self, agent: int) -> None:
        """Put an agent on the worklist (once)."""
        if not self.inwl[agent]:
            self.inwl[agent] = True
            self.worklist.append(agent)

    def run(self) -> SimResult:
        """Execute until every agent is done or nothing can move, then build the result."""
        for i in range(self.n_issuers):
            self.push(i)
        while self._drain() or self._arbitrate():
            pass
        return build_result(self)

    def _drain(self) -> bool:
        """Run agents until the worklist is empty; then resume one deferred issuer, if any."""
        wl, inwl, n_iss, pipe = self.worklist, self.inwl, self.n_issuers, self.pipe
        rounds = 0
        while wl:
            agent = wl.popleft()
            inwl[agent] = False
            if agent < n_iss:
                self._run_issuer(agent)
            elif agent in pipe:
                self._run_pipelined(agent)
            else:
                self._run_unit(agent)
            rounds += 1
            if rounds >= DEFAULT_FLOOR_EVERY:
                rounds = 0
                self.flags.sweep(self._time_floor)
        self.flags.sweep(self._time_floor)
        if self.deferred:
            issuer = self.deferred.popleft()
            self.stepped_aside[issuer] = False
            if self.steady is not None:
                self.steady.boundary(issuer)
            self.push(issuer)
            return True
        return False

    def _arbitrate(self) -> bool:
        """Nothing can move: let the earliest waiting request for a shared inline unit go."""
        if not self.arb:
            return False
        first = min(self.arb, key=lambda i: (self.arb[i], -self.prio[i], i))
        del self.arb[first]
        self.forced = first
        self.push(first)
        return True

    def _mark(self, i: int, ins: tuple, clock: int) -> int | None:
        """A loop boundary: with steady-state detection on, the issuer steps aside until
        everything else has run (once), so a cut sees the engine quiescent. Nothing else depends
        on where the engine stands at a boundary (race reports do not depend on the processing
        order), so without it the issuer goes straight on."""
        if self.steady is None:
            return clock
        if self.passing[i]:
            self.passing[i] = False
            return clock
        self.passing[i] = True
        self.stepped_aside[i] = True
        self.deferred.append(i)
        return None

    def _time_floor(self, a: int):
        """A time no future event of agent ``a`` can precede."""
        if a < self.n_issuers or self.head[a] < len(self.items[a]):
            return self.clock[a]
        return max(self.clock[a], self.clock[self.p.agents[a].owner])

    # ------------------------------------------------------------------ race reports

    def _describe(self, op: int, agent: int) -> RaceSide:
        """Report text for one access: op name, location, and the unit it ran on."""
        trace_op = self.p.op_of(op)
        info = self.p.agents[agent]
        if info.kind == "issuer":
            unit = trace_op.unit or info.name
            if self.n_issuers > 1:
                unit = f"{unit}@{info.name}"
        else:
            unit = info.name
        return RaceSide(trace_op.name, trace_op.loc, unit)

    def _live_views(self) -> list[int] | None:
        """Per agent b: min over other agents that may still access memory of their vc[b]."""
        live = [a for a in self.p.memory.accessing if not self._finished(a) and a not in self.dead]
        views = []
        for b in range(len(self.p.agents)):
            others = [self.vc[c][b] for c in live if c != b]
            views.append(min(others) if others else 1 << 62)
        return views

    def close(self) -> None:
        """Remove the progress display, if any."""
        if self.progress is not None:
            self.progress.close()

    def so_far(self) -> tuple[int, int, int]:
        """``(cycle reached, races found, violation kinds found)`` of the run in progress."""
        races = len(self.detector.found) if self.detector is not None else 0
        return max(self.clock, default=0), races, len(self.findings.list())

    def _finished(self, a: int) -> bool:
        """True when agent ``a`` will execute nothing more."""
        if a < self.n_issuers:
            return self.done[a]
        owner = self.p.agents[a].owner
        return self.done[owner] and self.head[a] >= len(self.items[a])


def simulate(trace: Trace, check_races: bool = True, record: bool = False,
             bound: bool = True) -> SimResult:
    """Simulate a trace: timing, races (unless disabled), deadlock and sync violations."""
    pipelined = any(spec.pipelined for spec in trace.machine.units.values())
    # an AMD group's own LDS results complete when it consumes them: timing reads the accesses
    accesses = check_races or bound or pipelined or trace.machine.lds_unit is not None
    with paused_gc():  # (around the run's end too: the program is freed before it resumes)
        if not record:
            return FullRun(lambda: compile_trace(trace, with_accesses=accesses), check_races,
                           bound).run()
        program = compile_trace(trace, with_accesses=accesses)
        return Engine(program, check_races=check_races, record=record, bound=bound).run()


def native_enabled() -> bool:
    """True when the compiled core is installed and ``TILESCHED_PURE_PYTHON`` is not set."""
    return native_engine is not None and not os.environ.get("TILESCHED_PURE_PYTHON")


def _replay_periodic_iterations(p) -> None:
    """Every iteration is simulated, but a streamed program's proven-periodic iterations are
    replayed instead of lowered again (``replay.py``)."""
    if hasattr(p, "lowering"):
        p.lowering.replay = True


class FullRun:
    """A simulation of every op of a program, by the compiled core when it can.

    ``make_program()`` returns a fresh program each time it is called. The compiled core
    (``native_engine.pyx``) runs it first; when it meets anything the Python engine must report
    (a race, a violation, a deadlock) or cannot represent, the program is made again and the
    Python engine runs it, so results are the Python engine's in every case. ``progress_for``
    (program -> an object with ``tick(engine)`` and ``close()``, or ``None``) draws progress.
    """

    def __init__(self, make_program, check_races: bool = True, bound: bool = True,
                 progress_for=None):
        self.make_program = make_program
        self.check_races = check_races
        self.bound = bound
        self.progress_for = progress_for or (lambda program: None)
        self.p = None
        self.engine = None  # the engine running now (native or Python)
        self.progress = None

    def run(self) -> SimResult:
        with paused_gc():
            self.p = self.make_program()
            if native_enabled() and not self.p.static_violations:
                result = self._native()
                if result is not None:
                    return result
                self.p = self.make_program()
            engine = self.engine = Engine(self.p, check_races=self.check_races, bound=self.bound)
            engine.progress = self._new_progress()
            return engine.run()

    def _native(self) -> SimResult | None:
        """The compiled core's result, or ``None`` when the Python engine must run."""
        _replay_periodic_iterations(self.p)
        if hasattr(self.p, "batch_replayed_iterations"):  # no steady state: no per-iteration marks
            self.p.batch_replayed_iterations()
        tracker = new_bound_tracker(self.p) if self.bound else None
        native = self.engine = native_engine.NativeEngine(self.p, self.check_races, tracker)
        native.progress = self._new_progress()
        try:
            native.run()
        except (native_engine.NeedsPythonEngine, OverflowError):
            return None
        found = tracker.bound() if tracker is not None else (0, "not computed")
        return native_result(self.p, native.summary(), found)

    def _new_progress(self):
        self.close()
        self.progress = self.progress_for(self.p)
        return self.progress

    def close(self) -> None:
        """Remove the progress display, if any."""
        if self.progress is not None:
            self.progress.close()
            self.progress = None

    def so_far(self) -> tuple[int, int, int]:
        """``(cycle reached, races found, violation kinds found)`` of the run in progress."""
        if self.engine is None:
            return 0, 0, 0
        if isinstance(self.engine, Engine):
            return self.engine.so_far()
        return max(self.engine.clocks, default=0), 0, 0  # the compiled core stops at a finding


def run_engine(engine: Engine) -> SimResult:
    """Run an engine built by the caller (who keeps it, e.g. to report an interrupted run)."""
    with paused_gc():
        return engine.run()


def simulate_program(program: Program, check_races: bool = True, record: bool = False,
                     bound: bool = True, steady: bool = False) -> SimResult:
    """Simulate a compiled program (a trace's, or a streamed lowering's); with ``steady``, a
    streamed program's loops may be extrapolated once their state repeats (``steady.py``)."""
    with paused_gc():
        return Engine(program, check_races=check_races, record=record, bound=bound,
                      steady=steady).run()

