"""Event flags as the engine streams them: matching, reuse checks and live-event peaks (DESIGN §4).

Flags are matched by count: the k-th wait of a flag consumes its k-th set. Only the sets not yet
consumed are kept (with the time, the exported vector clock and the op), plus the latest wait,
which is all the checks below need; memory is proportional to the flags live, not to the run.

Each set after the first is judged against the wait that consumed the set before it, as soon as
both exist:

- nothing, when that wait happens-before this set (the id was free again);
- otherwise ``double-set`` when the set came no later than that wait cleared the flag (or that
  wait never ran), and ``unordered-flag-reuse`` when the timing was fine but nothing orders the
  wait before the set, so another timing could double-set it. Happens-before, not program order,
  decides: a wait on the dst unit written before the next set on the src unit orders nothing
  unless a path (a back-edge flag dst->src, a barrier) leads from it to the src unit;
- ``flag-left-set`` at the end: sets that were never consumed.

``peak_live_events["SRC->DST"]`` is the largest number of flags of that directed pair that were set
and not yet consumed at one instant. :class:`LiveEvents` sweeps each pair's set/clear events in
time order once no agent can still produce an earlier one, so its buffer stays small.

Compiled twin: ``native/core.pyx`` runs flag matching and the live-event sweep (``PairSweep`` in ``native/core_state.h``) of clean runs (``NativeEngine``).
"""

from __future__ import annotations

import bisect
from collections import deque

from tilesched.sim.code.program import Program
from tilesched.sim.result import Findings

INF = float("inf")
SWEEP_AT = 4096  # buffered events of one pair that trigger a sweep


class FlagTable:
    """Per flag: unconsumed sets ``(time, vc, op)``, counts, the latest wait, who waits."""

    def __init__(self, program: Program, findings: Findings, record: bool):
        self.p = program
        self.findings = findings
        self.count = 0
        self.pending: list[deque] = []
        self.sets: list[int] = []
        self.waits: list[int] = []
        # the latest wait: (time, epoch, op, op of the set it consumed)
        self.last_wait: list[tuple | None] = []
        self.waiter: list[int | None] = []
        self.live = LiveEvents()
        self.history = [] if record else None
        self.grow()

    def grow(self) -> None:
        """Take in the flags the program interned since (a streamed program interns them as
        its ops are compiled)."""
        for flag in self.p.flags[self.count:]:
            self.pending.append(deque())
            self.sets.append(0)
            self.waits.append(0)
            self.last_wait.append(None)
            self.waiter.append(None)
            self.live.add(self.count, flag)
            if self.history is not None:
                self.history.append(([], []))
            self.count += 1

    def ready(self, flag: int) -> bool:
        """True when the flag has a set that no wait consumed yet."""
        return bool(self.pending[flag])

    def set(self, flag: int, time: int, vc: tuple, op: int) -> int | None:
        """Record the next set; returns the agent waiting for it (to wake), if any."""
        pending = self.pending[flag]
        if not pending and self.sets[flag]:
            self._judge(flag, (time, vc, op), self.last_wait[flag])
        pending.append((time, vc, op))
        self.sets[flag] += 1
        if self.history is not None:
            self.history[flag][0].append((time, vc, op))
        waiter = self.waiter[flag]
        self.waiter[flag] = None
        return waiter

    def take(self, flag: int) -> tuple:
        """The set the next wait consumes: ``(time, vc, op)`` (the caller checked :meth:`ready`)."""
        return self.pending[flag][0]

    def wait(self, flag: int, time: int, epoch: int, op: int) -> None:
        """Record the wait that consumed the oldest pending set (at ``time``, dst epoch ``epoch``)."""
        pending = self.pending[flag]
        set_time, _, set_op = pending.popleft()
        wait = (time, epoch, op, set_op)
        self.waits[flag] += 1
        self.last_wait[flag] = wait
        events = self.live.of_flag[flag].events
        events.append((set_time, 1, 1))
        events.append((time, 2 if time == set_time else 0, -1))
        if pending:
            self._judge(flag, pending[0], wait)
        if self.history is not None:
            self.history[flag][1].append(wait[:3])

    def _judge(self, flag: int, new_set: tuple, wait: tuple) -> None:
        """Judge a set against the wait that consumed the previous set of the same flag."""
        f = self.p.flags[flag]
        if wait[1] <= new_set[1][f.dst]:
            return
        if new_set[0] <= wait[0]:
            self._double_set(flag, new_set[2], wait[3])
        else:
            self.findings.add("unordered-flag-reuse",
                              f"{self.p.op_of(new_set[2]).loc}: set_flag {_name(f)} reuses the "
                              f"event id, but the wait_flag at {self.p.op_of(wait[2]).loc} that "
                              f"consumed its previous set does not happen-before it; some timing "
                              f"would set the flag twice")

    def _double_set(self, flag: int, op: int, previous: int) -> None:
        """A set came before the wait consuming the previous set cleared the flag."""
        self.findings.add("double-set", f"{self.p.op_of(op).loc}: set_flag "
                          f"{_name(self.p.flags[flag])} while the flag is still set (its previous "
                          f"set at {self.p.op_of(previous).loc} was not consumed yet)")

    def finish(self, clock_floor) -> dict[str, int]:
        """End-of-run checks; returns ``peak_live_events``."""
        for flag, pending in enumerate(self.pending):
            if not pending:
                continue
            for before, later in zip(pending, list(pending)[1:], strict=False):
                self._double_set(flag, later[2], before[2])
            self.findings.add("flag-left-set",
                              f"{self.p.op_of(pending[0][2]).loc}: flag {_name(self.p.flags[flag])}"
                              f" set here is never waited for ({len(pending)} set(s) left at the "
                              f"end)")
            for set_time, _, _ in pending:
                self.live.interval(self.p.flags[flag].pair, set_time, INF)
        return self.live.peaks()

    def sweep(self, floor) -> None:
        """Let the live-event counter advance to what no agent can precede any more."""
        self.live.sweep_all(self, floor)


def _name(flag) -> str:
    """``SRC->DST event N`` for messages."""
    return f"{flag.pair} event {flag.event}"


class LiveEvents:
    """Peak number of flags of each directed pair that are set and not yet consumed at once.

    A flag is live from its set to the wait that clears it. At one instant, clears of flags set
    earlier come first, then sets, then clears of flags set at that same instant (a flag consumed
    the moment it is set still held its id). Intervals arrive when they close (at the wait), in
    no particular time order; each pair buffers them in a heap and sweeps the instants before a
    *frontier*: the earliest time at which an event of the pair could still arrive.
    """

    def __init__(self) -> None:
        self.pairs: dict[str, _PairSweep] = {}
        self.of_flag: list[_PairSweep] = []

    def add(self, flag_id: int, flag) -> None:
        """Count the live events of one more flag with its pair."""
        pair = self.pairs.setdefault(flag.pair, _PairSweep())
        pair.flags.append(flag_id)
        pair.agents.update((flag.src, flag.dst))
        self.of_flag.append(pair)

    def interval(self, pair: str, start, end) -> None:
        """A flag of ``pair`` was live from ``start`` until ``end``."""
        events = self.pairs[pair].events
        events.append((start, 1, 1))
        events.append((end, 2 if end == start else 0, -1))

    def sweep_all(self, flags: FlagTable, floor) -> None:
        """Sweep the pairs with many buffered events (``floor(agent)`` bounds future times)."""
        for sweep in self.pairs.values():
            if len(sweep.events) >= sweep.limit:
                sweep.sweep(min(min((floor(a) for a in sweep.agents), default=INF),
                                min((flags.pending[f][0][0] for f in sweep.flags
                                     if flags.pending[f]), default=INF)))

    def peaks(self) -> dict[str, int]:
        """Sweep everything; the peak per pair."""
        out = {}
        for pair, sweep in self.pairs.items():
            sweep.sweep(INF, final=True)
            out[pair] = sweep.peak
        return out


class _PairSweep:
    """The buffered events, running live count and peak of one unit pair."""

    def __init__(self) -> None:
        self.flags: list[int] = []
        self.agents: set[int] = set()
        self.events: list[tuple] = []  # (time, class, +1 / -1), not yet sorted
        self.later: list[tuple] = []  # sorted events at or after the last frontier
        self.live = 0
        self.peak = 0
        self.limit = SWEEP_AT

    def sweep(self, frontier, final: bool = False) -> None:
        """Process the events strictly before ``frontier`` (all of them when ``final``)."""
        pool = self.later + self.events
        pool.sort()
        cut = len(pool) if final else bisect.bisect_left(pool, (frontier,))
        live, peak = self.live, self.peak
        for _, _, delta in pool[:cut]:
            live += delta
            if live > peak:
                peak = live
        self.live, self.peak = live, peak
        self.later, self.events = pool[cut:], []
        self.limit = max(SWEEP_AT, 2 * len(self.later))
