"""How many ops a run will simulate at least, known before it starts (``--max-ops``, issue 28).

The lowering counts ops as it makes them (``StreamedProgram``); a run refused only when the
count passes the limit may have worked for minutes first (40 nested loops of 2 iterations: 2^40
ops, refused after 266 s). :func:`least_ops` walks the function once, evaluating loop bounds
with the lowering's own scalar semantics (``Lowering.scalar_op``, the ``--arg`` values bound),
and multiplies nested trip counts:

- a tile or sync op is one op, an iteration whose body has none counts as one, a body that does
  nothing costs nothing (as the lowering counts);
- a bound that cannot be known before the run (it depends on a loop variable or a carried
  value) counts as a loop of no iterations, and an ``scf.if`` whose condition is unknown as its
  cheaper branch: the result is a lower bound, so a run is never refused that would fit;
- with steady-state extrapolation (``steady``) a loop of more than ``MIN_REMAINING`` iterations
  may be extrapolated after its first: it counts as one iteration. Loops shorter than that are
  always simulated in full. Without extrapolation (``sim --full``) and with every bound known,
  the count is exact.

The result names the outermost loop whose iterations alone pass the limit, for the message.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, scf
from xdsl.ir import Block, Operation

from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.ir.tile import TileOp
from tilesched.sim.steady import MIN_REMAINING


@dataclass
class Estimate:
    """At least ``ops`` ops; ``loop`` the outermost loop that alone needs more than the limit
    (None when none does), ``loop_ops`` and ``loop_trips`` its count and iterations."""

    ops: int
    loop: scf.ForOp | None = None
    loop_ops: int = 0
    loop_trips: int = 0
    nested: int = 0  # loops nested inside ``loop`` (at their deepest)


def least_ops(lowering, fn: func.FuncOp, limit: int, steady: bool) -> Estimate:
    """The fewest ops ``fn`` simulates (see the module docstring); ``lowering`` has bound the
    function's arguments (``Lowering.function``) and has not run."""
    walker = _Walker(lowering, limit, steady)
    ops = walker.block(fn.body.block)
    found = walker.found
    return Estimate(ops, *found) if found else Estimate(ops)


class _Walker:
    def __init__(self, lowering, limit: int, steady: bool):
        self.lowering = lowering
        self.limit = limit
        self.steady = steady
        self.found: tuple | None = None  # (loop, ops, trips, nested) of the outermost loop

    def block(self, block: Block) -> int:
        total = 0
        for op in block.ops:
            total += self.op(op)
            if total > 1 << 200:  # enough to refuse; keeps the arithmetic small
                return total
        return total

    def op(self, op: Operation) -> int:
        if isinstance(op, TileOp) or op.name.startswith("sync."):
            return 1
        if isinstance(op, scf.ForOp):
            return self.loop(op)
        if isinstance(op, scf.IfOp):
            cond = self.value(op.cond)
            if cond is not None:
                region = op.true_region if cond else op.false_region
                return self.block(region.blocks[0]) if region.blocks else 0
            return min((self.block(r.blocks[0]) if r.blocks else 0)
                       for r in (op.true_region, op.false_region))
        if len(op.results) == 1 and op.name.startswith(("arith.", "affine.apply")):
            self.evaluate(op)
        return 0

    def loop(self, op: scf.ForOp) -> int:
        bounds = [self.value(v) for v in (op.lb, op.ub, op.step)]
        if any(not isinstance(b, int) or isinstance(b, bool) for b in bounds) or bounds[2] <= 0:
            return 0  # known only during the run (or an error the lowering reports)
        lb, ub, step = bounds
        trips = max(0, -(-(ub - lb) // step))
        body = op.body.block
        terminator = body.first_op
        if terminator is body.last_op and isinstance(terminator, scf.YieldOp) \
                and list(terminator.operands) == list(body.args[1:]):
            return 0  # does nothing: the lowering skips it
        if trips == 0:
            return 0
        per = max(1, self.block(body))  # its index and carried values unknown: not in env
        simulated = 1 if self.steady and trips > MIN_REMAINING else trips
        total = simulated * per
        if total > self.limit:  # the last one set is the outermost
            self.found = (op, total, trips, self._nested(body))
        return total

    def _nested(self, block: Block) -> int:
        """Loops nested in ``block``, at the deepest."""
        deepest = 0
        for op in block.ops:
            for region in op.regions:
                for inner in region.blocks:
                    deepest = max(deepest, (isinstance(op, scf.ForOp)) + self._nested(inner))
        return deepest

    def value(self, value):
        return self.lowering.env.get(value)

    def evaluate(self, op: Operation) -> None:
        """Set ``op``'s result when its operands are known (the lowering's semantics)."""
        env = self.lowering.env
        if any(v not in env for v in op.operands):
            env.pop(op.results[0], None)
            return
        try:
            env[op.results[0]] = self.lowering.scalar_op(op)
        except TileschedError:
            env.pop(op.results[0], None)


def refusal(estimate: Estimate, limit: int, mode: str) -> TileschedError:
    """The located ``--max-ops`` refusal for an estimate over ``limit``."""
    if estimate.loop is None:
        return TileschedError(f"the program simulates at least {estimate.ops:,} ops, more than "
                              f"--max-ops {limit:,} (raise --max-ops)")
    nested = (f" (with the {estimate.nested} loop{'s' if estimate.nested > 1 else ''} nested "
              "in it, trip counts multiplied)") if estimate.nested else ""
    program = f"; the program at least {estimate.ops:,}" if estimate.ops > estimate.loop_ops else ""
    return TileschedError(
        f"this loop runs {estimate.loop_trips:,} iterations{nested}: {mode} would take at least "
        f"{estimate.loop_ops:,} ops, more than --max-ops {limit:,}{program} (raise --max-ops, "
        "or lower the trip count)", location_of(estimate.loop))
