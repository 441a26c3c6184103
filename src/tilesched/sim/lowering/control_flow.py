"""The control flow of the lowering: ``scf.for``, ``scf.if``, ``scf.while`` and ``func.call``.

A mixin of :class:`~tilesched.sim.lowering.lower.Lowering` (split from ``lower.py``, moved
unchanged): each method runs one control-flow op as the program would, yielding the chunks of
the ops it executes (``loop`` marks iteration boundaries for the engine and hands periodic
iterations to the replay).
"""

from __future__ import annotations

from xdsl.dialects import func, scf
from xdsl.ir import SSAValue

from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.sim.isa import ENTER, EXIT, ITER
from tilesched.sim.lowering.lowered import MAX_TRIPS, LoopFrame, View
from tilesched.sim.lowering.replay import LoopReplay

MAX_WHILE_ROUNDS = 1 << 16  # rounds of an scf.while that executes nothing (a hang)
MAX_CALL_DEPTH = 64  # nested func.call frames (recursion)


class ControlFlow:
    """Running control-flow ops (mixin of ``Lowering``)."""

    def loop(self, op: scf.ForOp):
        """Run an ``scf.for`` (carrying ``iter_args``), marking its entry, iterations and exit."""
        lb, ub, step = (self._bound(v, op, what) for v, what in
                        ((op.lb, "lower bound"), (op.ub, "upper bound"), (op.step, "step")))
        if step <= 0:
            raise TileschedError(f"scf.for step must be positive, got {step}", location_of(op))
        trips = max(0, -(-(ub - lb) // step))
        if trips > MAX_TRIPS:
            raise TileschedError(f"scf.for runs {trips} iterations, more than 2^63 - 1",
                                 location_of(op))
        loop_id = self.loop_ids.get(op)
        if loop_id is None:
            loop_id = self.loop_ids[op] = len(self.loops)
            self.loops.append(op)
        self.executions += 1
        frame = LoopFrame(loop_id, op, lb, step, trips, self.executions,
                          carried=[self.value(v, op) for v in op.iter_args],
                          start_position=self.base + len(self.ops))
        body = op.body.block
        yield self._mark(ENTER, frame)
        self.frames.append(frame)
        replay = LoopReplay.for_loop(self, frame, View) if self.replay else None
        if _does_nothing(body):
            frame.n = frame.trips  # an empty body costs nothing, even 10^9 times (sim --full)
        env, index, carried_args = self.env, body.args[0], body.args[1:]
        while frame.n < frame.trips:
            n = frame.n
            env[index] = lb + n * step
            for arg, value in zip(carried_args, frame.carried, strict=True):
                env[arg] = value
            yield self._mark(ITER, frame)
            if frame.jumped:  # moved by the steady-state simulation (Lowering.jump)
                frame.jumped = False
                continue
            if replay is not None and self.batch:
                repeat = replay.repeat(n, self.batch)
                if repeat is not None:  # whole periods at once (ops of this chunk: none yet)
                    self.repeat = repeat
                    self.replayed += repeat.count
                    frame.n = n + repeat.count
                    continue
            if replay is not None:
                moved = replay.ops(n)
                if moved is not None:  # the ops of a period earlier, moved (replay.py)
                    self.ops = moved
                    self.replayed += 1
                    frame.n = n + 1
                    continue
            yielded = yield from self.block(body)
            if yielded is not None:
                frame.carried = yielded
            if replay is not None:
                replay.lowered(n, self.ops)
            frame.n = n + 1
        yield self._mark(EXIT, frame)
        self.frames.pop()
        for result, value in zip(op.results, frame.carried, strict=True):
            self.env[result] = value

    def _bound(self, value: SSAValue, op: scf.ForOp, what: str) -> int:
        """A loop bound as an integer (a located error when it is not one)."""
        found = self.value(value, op)
        if isinstance(found, float) and found.is_integer():
            found = int(found)
        if not isinstance(found, int) or isinstance(found, bool):
            raise TileschedError(f"scf.for {what} is {found!r}, not an integer", location_of(op))
        return found

    def branch(self, op: scf.IfOp):
        """Take the branch of an ``scf.if`` its condition selects."""
        region = op.true_region if self.value(op.cond, op) else op.false_region
        yielded = (yield from self.block(region.blocks[0])) if region.blocks else None
        for result, value in zip(op.results, yielded or [], strict=False):
            self.env[result] = value

    def while_loop(self, op: scf.WhileOp):
        """Run an ``scf.while``: the before region decides (``scf.condition``) and forwards its
        values to the after region, whose ``scf.yield`` starts the next round. No loop marks:
        it is simulated in full (``--max-ops`` bounds a loop that produces ops; one that
        produces none stops after :data:`MAX_WHILE_ROUNDS` rounds with a located error)."""
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        values = [self.value(v, op) for v in op.arguments]
        rounds, start = 0, self.base + len(self.ops)
        while True:
            for arg, value in zip(before.args, values, strict=True):
                self.env[arg] = value
            going, forwarded = yield from self.block(before)
            if not going:
                break
            rounds += 1
            if rounds > MAX_WHILE_ROUNDS and self.base + len(self.ops) == start:
                raise TileschedError(f"scf.while ran {MAX_WHILE_ROUNDS} rounds without executing "
                                     f"a tile or sync op: it does not terminate",
                                     location_of(op))
            for arg, value in zip(after.args, forwarded, strict=True):
                self.env[arg] = value
            values = yield from self.block(after)
        for result, value in zip(op.results, forwarded, strict=True):
            self.env[result] = value

    def call(self, op: func.CallOp):
        """Run a ``func.call`` by running the callee's body with its arguments bound (buffers
        are passed as views: the callee's accesses are the caller's)."""
        callee = self._callee(op)
        if len(self.calls) >= MAX_CALL_DEPTH:
            raise TileschedError(f"calls nest deeper than {MAX_CALL_DEPTH} (recursion through "
                                 f"@{callee.sym_name.data}?): the simulator inlines calls",
                                 location_of(op))
        self.calls.append(callee)
        block = callee.body.block
        for arg, operand in zip(block.args, op.arguments, strict=True):
            self.env[arg] = self.value(operand, op)
        returned = yield from self.block(block)
        self.calls.pop()
        for result, value in zip(op.results, returned or [], strict=False):
            self.env[result] = value

    def _callee(self, op: func.CallOp) -> func.FuncOp:
        """The function a call names (a located error when the module does not define it)."""
        name = op.callee.string_value()
        top = op
        while top.parent_op() is not None:
            top = top.parent_op()
        for candidate in top.walk():
            if isinstance(candidate, func.FuncOp) and candidate.sym_name.data == name:
                if not candidate.body.blocks:
                    break
                return candidate
        raise TileschedError(f"func.call @{name}: the module defines no body for @{name}, so "
                             f"the simulator cannot run it", location_of(op))


def _does_nothing(body) -> bool:
    """Is a loop body only a terminator yielding its ``iter_args`` unchanged (or nothing)?"""
    terminator = body.first_op
    return terminator is body.last_op and isinstance(terminator, scf.YieldOp) \
        and list(terminator.operands) == list(body.args[1:])
