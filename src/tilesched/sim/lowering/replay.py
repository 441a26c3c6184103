"""Replaying a loop's lowered iterations instead of interpreting its body again (``sim --full``).

Within a *segment* of iterations (``loop_analysis.py``) iteration ``n + P`` lowers the ops of
iteration ``n`` with every region of buffer ``b`` moved by ``shift[b]`` and its ``iter_args`` given
by their closed forms. Full simulation still simulates every iteration; only the lowering of the
body (environment look-ups, index arithmetic, views) is replaced, once the segment is known, by
moving the regions of the ops lowered one period earlier.

The analysis proves the repetition; as a second guard, a segment is replayed only after a whole
period was lowered normally and matched the ops of the period before it, moved (and the
``iter_args`` their closed forms). Loops with inner loops are lowered normally (their chunks
nest), as is anything the analysis cannot follow.

With the compiled engine (``run.FullRun``) whole runs of periods are handed over at once, as a
:class:`Repeat`: each issuer group makes their instructions from its own instructions of the period
before (op references moved by the period's length, regions by the buffers' shifts,
``native/repeat.pyx``), so the lowering and the chunk compiler do nothing per iteration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf

from tilesched.sim import native
from tilesched.sim.lowering.loop_analysis import Unanalyzable, analyze_loop


@dataclass(frozen=True, slots=True)
class Repeat:
    """Iterations ``[first, first + count)`` of ``frame``'s loop (``count`` a multiple of
    ``period``), each the one ``period`` earlier with every region of buffer ``b`` moved by
    ``steps[b]`` (buffers whose regions do not move are left out); ``ops`` per period,
    ``templates`` the lowered ops of the period before ``first``."""

    frame: object
    first: int
    count: int
    period: int
    ops: int
    steps: dict
    templates: tuple

    @property
    def total(self) -> int:
        """Ops of all ``count`` iterations."""
        return self.ops * (self.count // self.period)


class LoopReplay:
    """Lowered iterations of one execution of a loop, replayed period after period."""

    def __init__(self, lowering, frame, view_type):
        self.lowering, self.frame, self.view_type = lowering, frame, view_type
        self.segment = None
        self.recorded: dict[int, list] = {}  # iteration -> its lowered (sid, operands)
        self.matched = 0  # iterations in a row that matched the one a period earlier
        self.plans: dict[int, tuple | None] = {}  # iteration -> what moves in its ops
        self.masks: dict[int, tuple] = {}  # sid -> per operand: is it a memref
        self.steps: dict[int, tuple | int | None] = {}  # buffer -> region move per period
        compiled = native.use(native.producers)
        self.native = compiled.moved_ops if compiled is not None else None

    @staticmethod
    def for_loop(lowering, frame, view_type) -> LoopReplay | None:
        """A replay for a loop without inner loops (``None`` otherwise)."""
        if any(isinstance(op, scf.ForOp) for op in frame.op.body.walk()):
            return None
        return LoopReplay(lowering, frame, view_type)

    def ops(self, n: int) -> list | None:
        """The ops of iteration ``n`` moved from a period earlier, or ``None``: lower it."""
        segment = self.segment
        if segment is None or n >= segment.end or n < segment.start:
            self._analyze(n)
            return None
        period = segment.period
        if self.matched < period:
            return None
        earlier = self.recorded.get(n - period)
        if earlier is None:
            return None
        plan = self._plan_of(n - period, earlier)
        if plan is None:
            self.segment = None
            return None
        moved = self._moved(earlier, plan)
        self._record(n, moved, plan)
        self.frame.carried = segment.carried_at(n + 1)
        return moved

    def repeat(self, n: int, max_ops: int) -> Repeat | None:
        """Iterations from ``n`` on, whole periods of at most ``max_ops`` ops, replayed at once
        (``None``: fewer than two periods can be; :meth:`ops` handles iteration ``n``)."""
        segment = self.segment
        if segment is None or not segment.start <= n < segment.end:
            return None
        period = segment.period
        earlier = [self.recorded.get(m) for m in range(n - period, n)]
        if self.matched < period or any(ops is None for ops in earlier):
            return None
        length = sum(map(len, earlier))
        periods = min((segment.end - n) // period, max_ops // max(length, 1))
        if length == 0 or periods < 2:
            return None
        plans = [self._plan_of(m, ops) for m, ops in zip(range(n - period, n), earlier,
                                                         strict=True)]
        if any(plan is None for plan in plans):
            return None
        count = periods * period
        for m, ops, plan in zip(range(n - period, n), earlier, plans, strict=True):
            self._record(m + count, self._moved(ops, _scaled(plan, periods)), plan)
            self.recorded.pop(m, None)
            self.plans.pop(m, None)
        self.frame.carried = segment.carried_at(n + count)
        steps = {buf: step for buf, step in self.steps.items() if step}
        return Repeat(self.frame, n, count, period, length, steps, tuple(earlier))

    def lowered(self, n: int, ops: list) -> None:
        """Iteration ``n`` was lowered normally: compare it with the one a period earlier."""
        segment = self.segment
        if segment is None or not segment.start <= n < segment.end:
            return
        earlier = self.recorded.get(n - segment.period)
        if earlier is not None and self._moved(earlier) == ops \
                and list(self.frame.carried) == segment.carried_at(n + 1):
            self.matched += 1
        else:
            self.matched = 0
        self._record(n, list(ops))

    def _record(self, n: int, ops: list, plan: tuple | None = None) -> None:
        """Keep iteration ``n``'s ops (and what moves in them, when known) for one period."""
        self.recorded[n] = ops
        self.recorded.pop(n - self.segment.period, None)
        self.plans[n] = plan
        self.plans.pop(n - self.segment.period, None)

    def _analyze(self, n: int) -> None:
        """Start a new segment at iteration ``n`` (none when the analysis gives up)."""
        self.segment, self.matched = None, 0
        self.recorded.clear()
        self.plans.clear()
        frame = self.frame
        try:
            segment = analyze_loop(frame.op, frame.lb, frame.step, frame.trips, n,
                                   self.lowering.env, self.view_type)
        except Unanalyzable:
            return
        if segment.end - segment.start < 3 * segment.period:
            return  # too short to be worth it
        self.segment = segment
        self.steps = {buf: None if step is None else (step if any(step) else 0)
                      for buf, step in segment.shift.items()}

    def _moved(self, ops: list, plan: tuple | None = None) -> list | None:
        """``ops`` one period later (``None`` when something does not simply move: a buffer
        whose regions move by different amounts, a ``wait_group`` count computed at run time;
        a per-slot event id repeats with the period: ``loop_analysis``). Ops none
        of whose operands move are the same pair objects (``chunk_compiler.py`` knows them).

        Compiled twin: ``native/producers.pyx`` ``moved_ops`` (with a known plan)."""
        if plan is None:
            plan = self._plan(ops)
            if plan is None:
                return None
        if self.native is not None:
            return self.native(ops, plan)
        out = list(ops)
        for position, moves in plan:
            sid, operands = ops[position]
            moved = list(operands)
            for k, dims in moves:
                buf, region = operands[k]
                bounds = list(region)
                for dim, step in dims:
                    lo, hi = bounds[dim]
                    bounds[dim] = (lo + step, hi + step)
                moved[k] = (buf, tuple(bounds))
            out[position] = (sid, tuple(moved))
        return out

    def _plan_of(self, n: int, ops: list) -> tuple | None:
        """What moves in iteration ``n``'s ``ops`` (kept when it was replayed, else derived)."""
        plan = self.plans.get(n)
        return plan if plan is not None else self._plan(ops)

    def _plan(self, ops: list) -> tuple | None:
        """What moves in ``ops`` after one period: ``(position, ((operand, ((dim, step),
        ...)), ...))`` per op with a moving operand (``None``: something cannot move)."""
        plan = []
        masks, steps = self.masks, self.steps
        statics = self.lowering.statics
        for position, (sid, operands) in enumerate(ops):
            if not operands:
                continue
            mask = masks.get(sid)
            if mask is None:
                info = statics[sid]
                mask = masks[sid] = (() if info.is_sync
                                     else tuple(shape is not None for shape in info.shapes))
                if info.operand_prop == "event":
                    mask = masks[sid] = None  # the analysis proved the id repeats each period
            if mask is None:
                continue
            if not mask:
                return None
            moves = []
            for k, (operand, mem) in enumerate(zip(operands, mask, strict=True)):
                step = steps.get(operand[0], 0) if mem else 0
                if step is None:
                    return None
                if step != 0:
                    moves.append((k, tuple((dim, s) for dim, s in enumerate(step) if s)))
            if moves:
                plan.append((position, tuple(moves)))
        return tuple(plan)


def _scaled(plan: tuple, periods: int) -> tuple:
    """A move plan for ``periods`` periods at once."""
    return tuple((position, tuple((k, tuple((dim, step * periods) for dim, step in dims))
                                  for k, dims in moves))
                 for position, moves in plan)
