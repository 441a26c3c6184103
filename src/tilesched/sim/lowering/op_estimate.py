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
from tilesched.sim.isa import MIN_REMAINING


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


# Peak memory per simulated op (and issuer group) of the commands that keep every op, measured
# with /usr/bin/time -v on loops of 100k-400k load/store ops (benchmarks/bench_limits.py), rounded
# up with a margin for ops with more operands, sync ops and findings: ``report`` records the
# timeline and builds the page (1.4 KB measured), ``equiv`` unrolls and runs both programs
# (0.8 KB per op of A or B), ``sim --trace`` records the timeline and writes it (0.8 KB).
BYTES_PER_OP = {"report": 2048, "equiv": 1024, "sim --trace": 1024}
DEFAULT_MAX_MEMORY = 1 << 30  # estimated bytes of per-op data: peak RSS stays under ~1.5 GB


def ops_within(command: str, issuers: int, limit: int) -> int:
    """The most ops ``command`` may keep within ``limit`` bytes (the guard during the run, for
    programs whose trip counts are known only then)."""
    return max(1, limit // (BYTES_PER_OP[command] * issuers))


def memory_refusal(estimate: Estimate, command: str, issuers: int, limit: int,
                   option: str = "--max-memory") -> TileschedError | None:
    """The located refusal of a run whose per-op data (``estimate.ops`` ops kept by ``command``
    for each of ``issuers`` issuer groups) would need more than ``limit`` bytes, or None."""
    per_op = BYTES_PER_OP[command] * issuers
    need = estimate.ops * per_op
    if need <= limit:
        return None
    how = f"more than {option} {_size(limit)} (raise {option}, or lower the trip count)"
    if estimate.loop is None:
        return TileschedError(f"{command} keeps every op in memory: about {_size(need)} for "
                              f"{estimate.ops:,} ops, {how}")
    nested = f" (with the {estimate.nested} loop(s) nested in it)" if estimate.nested else ""
    program = (f" (the whole run: {_size(need)} for {estimate.ops:,})"
               if estimate.ops > estimate.loop_ops else "")
    return TileschedError(
        f"this loop runs {estimate.loop_trips:,} iterations{nested}: {command} keeps every op "
        f"in memory, about {_size(estimate.loop_ops * per_op)} for its {estimate.loop_ops:,} "
        f"ops{program}, {how}", location_of(estimate.loop))


def _size(n: int) -> str:
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} bytes"
