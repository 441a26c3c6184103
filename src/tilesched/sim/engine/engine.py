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

from collections import deque

from tilesched.sim.code.program import Program
from tilesched.sim.engine.critical_path import new_bound_tracker
from tilesched.sim.engine.flags import FlagTable
from tilesched.sim.engine.happens_before import RaceDetector
from tilesched.sim.engine.issuers import IssuerWalk
from tilesched.sim.engine.outcome import build_result
from tilesched.sim.engine.steady import SteadyState
from tilesched.sim.engine.units import PipeState, UnitWalk
from tilesched.sim.result import Findings, RaceSide, SimResult

DEFAULT_FLOOR_EVERY = 1 << 14  # worklist rounds between live-event sweeps


class Engine(IssuerWalk, UnitWalk):
    """One simulation of a compiled program; :meth:`run` returns a :class:`SimResult`.

    Compiled twin: ``native/core.pyx`` ``NativeEngine`` (clean runs only; ``clock`` is its
    ``clocks``)."""

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
            p.replay_periodic_iterations()

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
        """Execute until every agent is done or nothing can move, then build the result.

        Compiled twin: ``native/core.pyx`` ``NativeEngine.run``."""
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

