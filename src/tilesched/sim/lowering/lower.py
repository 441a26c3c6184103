"""Lower a verified tile program for one target, as it runs.

Lowering *runs* the function's control flow (:class:`Lowering`, a generator yielding the executed
ops in chunks that end at loop boundaries; ``stream.py`` compiles them for the engine, and
:func:`lower_module` collects them into a whole :class:`~tilesched.sim.trace.Trace`):

- ``scf.for`` runs iteration by iteration (bounds are constants, index arithmetic, or index
  function arguments given with ``--arg name=value``; zero-trip loops produce nothing;
  ``iter_args`` are carried; the steady-state simulation may move a loop forward at an iteration
  boundary, :meth:`Lowering.jump`);
  ``scf.if`` takes the branch its condition selects; ``arith`` integer, index and float ops and
  ``affine.apply`` are evaluated;
- ``memref.alloc`` makes a local buffer (a fresh one each time it executes); function memref
  arguments are the argument buffers; ``tile.view`` / ``tile.slot`` narrow a root region, so every
  tile-op operand becomes an :class:`~tilesched.sim.trace.Access` (root buffer, region, shape);
- each tile op is routed by the target (its ``pipe`` property wins) and timed by the target's
  latency model (its ``latency`` property wins); ops on ``async`` units carry their group queue,
  ops on ``lds`` units the LDS flag;
- with several issuer groups (AMD) every group gets the whole op list.

Errors (a loop bound that is not known, a view outside its buffer, an op the simulator does not
model) are :class:`~tilesched.diagnostics.TileschedError` located at the op.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Block, Operation, SSAValue

from tilesched.analysis.units import op_core, op_cycles
from tilesched.diagnostics import TileschedError
from tilesched.ir.arith_eval import EVALUATED, evaluate
from tilesched.ir.text import location_of
from tilesched.ir.tile import (
    FUSION_GROUP,
    FUSION_ORDER,
    LAST_USE,
    SlotOp,
    StageBorderOp,
    TileOp,
    ViewOp,
)
from tilesched.ir.types import memory_space, memref_shape, scalar_value_error
from tilesched.sim.isa import ENTER, EXIT, ITER
from tilesched.sim.lowering.replay import LoopReplay
from tilesched.sim.trace import (
    Access,
    Buffer,
    MachineModel,
    Trace,
    TraceError,
    TraceOp,
    UnitSpec,
)
from tilesched.target.cores import qualified
from tilesched.target.model import Route, Target

MAX_OPS = 20_000_000
_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
           "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "i1": "bool"}


def machine_model(target: Target) -> MachineModel:
    """The engine's view of a target: units, issuers, event limit, group queues.

    A memory space named ``local`` (registers) is private to each issuer group.
    """
    units = {u.name: UnitSpec(u.kind, u.pipelined) for u in target.units.values()}
    queues = {r.async_queue: r.unit for r in target.routes if r.async_queue is not None}
    private = ("local",) if "local" in target.spaces else ()
    cores = {name: core.issuer for name, core in target.cores.items()}
    return MachineModel(target.name, units, tuple(target.issuers), target.event_limit, queues,
                        target.issue_cycles, private, target.frequency_hz, cores,
                        target.cross_event_limit if cores else None)


@dataclass(slots=True)
class View:
    """A memref value: root buffer, region per root dimension, and which root dims remain."""

    buffer: int
    region: tuple[tuple[int, int], ...]
    dims: tuple[int, ...]


def _access(operand: tuple, shape: tuple[int, ...]) -> Access:
    """The :class:`Access` of a memref operand ``(buffer, region)`` of static ``shape``: a view
    with a valid region (``tile.view ... valid``) covers fewer elements than its shape, and the
    op sees the valid region's shape (the region's trailing extents: slots fix leading dims)."""
    buffer, region = operand
    if shape and any(hi - lo != n for (lo, hi), n in zip(region[-len(shape):], shape, strict=True)):
        shape = tuple(hi - lo for lo, hi in region[-len(shape):])
    return Access(buffer, region, shape)


@dataclass
class StaticOp:
    """What lowering computes once per IR op it executes: routing, duration, properties, place.

    Streamed instructions name their op by ``sid`` (its index in the lowering's static table);
    the fields are those of a :class:`~tilesched.sim.trace.TraceOp` the simulator reports.
    """

    sid: int
    name: str
    unit: str | None
    duration: int
    props: dict
    loc: str
    async_queue: int | None
    lds: bool
    shapes: tuple  # per operand: the memref shape, or None for a scalar
    issuer: str = ""
    operands: tuple = ()  # (SSA value, shape) per operand of a tile op
    operand_prop: str | None = None  # a sync op's property its operand gives at run time

    def with_operands(self, operands: tuple) -> dict:
        """A sync op's properties in one execution (its run-time operand, if any, evaluated
        to ``operands[0]``: a ``wait_group`` count or a per-slot event id)."""
        return {**self.props, self.operand_prop: operands[0]} if operands else self.props

    @property
    def is_sync(self) -> bool:
        return self.name.startswith("sync.")


MAX_TRIPS = (1 << 63) - 1


@dataclass(eq=False)
class LoopFrame:
    """One execution of an ``scf.for``: its iteration domain and where the lowering is in it.

    ``n`` is the index of the iteration being lowered (``0 <= n < trips``); the steady-state
    simulation may move it forward at an ``ITER`` mark (``carried`` then holds the ``iter_args``
    of the new iteration).
    """

    loop: int  # index in the lowering's loop table
    op: scf.ForOp
    lb: int
    step: int
    trips: int
    execution: int  # counts executions of this loop op
    n: int = 0
    carried: list = field(default_factory=list)
    current: int = -1  # the iteration the ops being lowered belong to (-1: before the first)
    ordinal: int = 0  # chunks ended so far in that iteration
    start_position: int = 0  # program position where the loop started
    jumped: bool = False  # moved by the steady-state simulation at the last ITER mark


@dataclass(slots=True)
class Chunk:
    """Ops lowered between two loop boundaries: ``ops`` are ``(sid, operands)`` pairs (a memref
    operand is ``(buffer, region)``), the first at program position ``base``; ``mark`` is
    ``(kind, frame, n)`` of the boundary that ends the chunk (``None`` at the end); ``where``
    says, for each loop being run, ``(frame, iteration, ordinal)``: the chunk is the
    ``ordinal``-th one of that iteration of that loop. ``repeat``: a run of replayed iterations
    that follows ``ops`` (``replay.Repeat``, only when the lowering batches them)."""

    base: int
    ops: list
    mark: tuple | None
    where: tuple = ()
    repeat: object = None

    def __len__(self) -> int:
        """Program positions the chunk takes."""
        return len(self.ops) + (self.repeat.total if self.repeat is not None else 0)


class Lowering:
    """Interprets one function; :meth:`chunks` yields what it executes, chunk by chunk."""

    def __init__(self, target: Target, args: dict[str, int | float], strict_args: bool = True):
        self.target = target
        self.strict_args = strict_args
        self.machine = machine_model(target)
        self.args = dict(args)
        self.env: dict[SSAValue, object] = {}
        self.buffers: list[Buffer] = []
        self.statics: list[StaticOp] = []
        self.static: dict[Operation, StaticOp] = {}
        self.origins: list = []  # per buffer: the function argument or memref.alloc it came from
        self.loops: list[scf.ForOp] = []
        self.loop_ids: dict[scf.ForOp, int] = {}
        self.executions = 0
        self.issuer = self.machine.issuers[0]
        self.base = 0
        self.ops: list = []
        self.body = None
        self.frames: list[LoopFrame] = []  # the loops being run, outermost first
        self.calls: list[func.FuncOp] = []  # the callees being run (func.call), outermost first
        self.compiled: dict[Block, list] = {}  # block -> its steps (see block())
        self.replay = False  # replay periodic loop iterations instead of lowering them (replay.py)
        self.replayed = 0  # iterations replayed
        self.batch = 0  # > 0: replay whole periods of up to this many ops at once (replay.Repeat)
        self.repeat = None  # the replayed run the current chunk ends with

    # -------------------------------------------------------------- entry

    def function(self, fn: func.FuncOp) -> None:
        """Bind the function's arguments (the body runs in :meth:`chunks`)."""
        used = set()
        for k, arg in enumerate(fn.body.block.args):
            name = arg.name_hint or f"arg{k}"
            if isinstance(arg.type, MemRefType):
                self.env[arg] = self._new_buffer(name, arg.type, True, arg)
            elif name in self.args:
                self.env[arg] = _argument_value(name, self.args[name], arg.type, fn)
                used.add(name)
            else:
                raise TileschedError(f"function argument %{name} of @{fn.sym_name.data} needs a "
                                     f"value: pass --arg {name}=VALUE", location_of(fn))
        unknown = sorted(set(self.args) - used)
        if unknown and self.strict_args:
            names = [a.name_hint for a in fn.body.block.args if not isinstance(a.type, MemRefType)]
            raise TileschedError(f"--arg {', '.join(unknown)}: @{fn.sym_name.data} has no such "
                                 f"scalar argument (scalar arguments: {', '.join(filter(None, names)) or 'none'})",
                                 location_of(fn))
        self.body = fn.body.block

    def chunks(self):
        """Run the function body, yielding a :class:`Chunk` at every loop boundary and at the end."""
        yield from self.block(self.body)
        yield Chunk(self.base, self.ops, None)

    def jump(self, frame: LoopFrame, iteration: int, position: int, carried: list) -> None:
        """Continue ``frame``'s loop at ``iteration`` (program position ``position``, ``iter_args``
        ``carried``) instead of the next one; only at an ``ITER`` mark of that loop, the last
        chunk the lowering yielded."""
        frame.n = iteration
        frame.carried = list(carried)
        frame.current, frame.ordinal = iteration - 1, 0
        frame.jumped = True  # even to the iteration it was about to lower: its mark is re-made
        self.base = position

    def _new_buffer(self, name: str, type_: MemRefType, argument: bool, origin) -> View:
        """Add a root buffer of a memref type and return a view of all of it."""
        if any(d < 0 for d in memref_shape(type_)):  # passes accept them; buffers need a size
            where = origin if isinstance(origin, Operation) else origin.owner.parent_op()
            raise TileschedError(f"the simulator needs static shapes: %{name} is {type_}",
                                 location_of(where))
        shape = memref_shape(type_)
        dtype = _DTYPES.get(str(type_.element_type), "float32")
        buf = Buffer(len(self.buffers), name, shape, dtype, memory_space(type_) or "", argument)
        self.buffers.append(buf)
        self.origins.append(origin)
        return View(buf.id, buf.region, tuple(range(len(shape))))

    def _mark(self, kind: int, frame: LoopFrame) -> Chunk:
        """End the current chunk at a loop boundary and return it."""
        where = tuple([(f, f.current, f.ordinal) for f in self.frames])
        for f in self.frames:
            f.ordinal += 1
        if kind == ITER:
            frame.current, frame.ordinal = frame.n, 0
        chunk = Chunk(self.base, self.ops, (kind, frame, frame.n), where, self.repeat)
        self.base += len(chunk)
        self.ops = []
        self.repeat = None
        return chunk

    # -------------------------------------------------------------- control flow

    def block(self, block: Block):
        """Run a block (a generator); returns the values of its terminating ``scf.yield``.

        Each block is compiled once into *steps* ``(kind, handler, op)`` (``_steps``), so that
        running an iteration does not dispatch on op classes again."""
        steps = self.compiled.get(block)
        if steps is None:
            steps = self.compiled[block] = [self._step(op) for op in block.ops]
        env = self.env
        for kind, handler, op in steps:
            if kind == _PLAIN:
                handler(op)
            elif kind == _NESTED:
                yield from handler(op)
            elif kind == _YIELD:
                return [env[v] if v in env else self.value(v, op) for v in handler]
            elif kind == _CONDITION:  # an scf.while's before region: (continue?, forwarded)
                return (bool(self.value(op.condition, op)),
                        [self.value(v, op) for v in op.args])
            else:  # func.return: what a call yields (nothing for the simulated function)
                return [self.value(v, op) for v in op.operands]
        return None

    def _step(self, op: Operation) -> tuple:
        """How :meth:`block` runs one op: ``(kind, handler, op)``."""
        if isinstance(op, scf.YieldOp):
            return (_YIELD, tuple(op.operands), op)
        if isinstance(op, func.ReturnOp):
            return (_RETURN, None, op)
        if isinstance(op, scf.ForOp):
            return (_NESTED, self.loop, op)
        if isinstance(op, scf.IfOp):
            return (_NESTED, self.branch, op)
        if isinstance(op, scf.WhileOp):
            return (_NESTED, self.while_loop, op)
        if isinstance(op, scf.ConditionOp):
            return (_CONDITION, None, op)
        if isinstance(op, func.CallOp):
            return (_NESTED, self.call, op)
        if isinstance(op, TileOp):
            return (_PLAIN, self._tile_step(), op)
        if op.name.startswith("sync."):
            return (_PLAIN, self._sync_step(op), op)
        if isinstance(op, ViewOp | SlotOp):
            return (_PLAIN, self._view_step(op), op)
        if isinstance(op, memref.AllocOp):
            return (_PLAIN, self._alloc, op)
        if isinstance(op, StageBorderOp | memref.DeallocOp):
            return (_PLAIN, _nothing, op)
        if op.name.startswith(("arith.", "affine.apply")):
            return (_PLAIN, self._scalar_step(op), op)
        return (_PLAIN, self._unmodelled, op)

    def _tile_step(self):
        """A handler lowering one execution of a tile op (:meth:`tile`; its static entry and
        operand kinds looked up once)."""
        env, lowering = self.env, self
        sid = spec = None

        def tile(op):
            nonlocal sid, spec
            if spec is None:
                info = lowering.static_of(op)
                sid, spec = info.sid, tuple((v, s is not None) for v, s in info.operands)
            operands = []
            try:
                for value, mem in spec:
                    current = env[value]
                    operands.append((current.buffer, current.region) if mem else current)
            except KeyError:
                lowering.tile(op)  # reports the value it cannot compute
                return
            lowering.ops.append((sid, tuple(operands)))
        return tile

    def _sync_step(self, op: Operation):
        """A handler lowering one execution of a sync op (:meth:`sync`); a constant one appends
        the same entry every time."""
        lowering = self
        entry = None

        def sync(op):
            nonlocal entry
            if entry is not None:
                lowering.ops.append(entry)
                return
            lowering.sync(op)
            if lowering.static[op].operand_prop is None:
                entry = lowering.ops[-1]
        return sync

    def _unmodelled(self, op: Operation) -> None:
        raise TileschedError(f"the simulator does not model '{op.name}'", location_of(op))

    def _alloc(self, op: memref.AllocOp) -> None:
        name = op.memref.name_hint or f"alloc{len(self.buffers)}"
        self.env[op.memref] = self._new_buffer(name, op.memref.type, False, op)

    def _view_step(self, op: ViewOp | SlotOp):
        """A handler setting the view's result (operands resolved once)."""
        result, env, view = op.results[0], self.env, self.view
        source = op.source
        if isinstance(op, SlotOp):
            index = op.index

            def slot(op):
                src, k = env.get(source), env.get(index)
                if src is None or k is None or not isinstance(k, int):
                    env[result] = view(op)
                    return
                root_dim = src.dims[0]
                lo, hi = src.region[root_dim]
                if not 0 <= k < hi - lo:
                    env[result] = view(op)  # reports the error
                    return
                region = list(src.region)
                region[root_dim] = (lo + k, lo + k + 1)
                env[result] = View(src.buffer, tuple(region), src.dims[1:])
            return slot
        offsets, sizes = tuple(op.offsets), op.size_list
        if op.valid:
            def valid_window(op):
                env[result] = view(op)
            return valid_window

        def window(op):
            src = env.get(source)
            if src is None:
                env[result] = view(op)
                return
            region = list(src.region)
            for root_dim, value, size in zip(src.dims, offsets, sizes, strict=True):
                offset = env.get(value)
                lo, hi = region[root_dim]
                if not isinstance(offset, int) or offset < 0 or lo + offset + size > hi:
                    env[result] = view(op)  # converts, or reports the error
                    return
                region[root_dim] = (lo + offset, lo + offset + size)
            env[result] = View(src.buffer, tuple(region), src.dims)
        return window

    def _scalar_step(self, op: Operation):
        """A handler setting an ``arith`` / ``affine.apply`` result."""
        result, env, scalar_op = op.results[0], self.env, self.scalar_op
        if isinstance(op, arith.ConstantOp):
            value = scalar_op(op)

            def constant(op):
                env[result] = value
            return constant

        def evaluate(op):
            env[result] = scalar_op(op)
        return evaluate

    def op(self, op: Operation) -> None:
        """Dispatch one op without regions."""
        self._step(op)[1](op)

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

    def value(self, value: SSAValue, user: Operation):
        """The current value of an SSA value."""
        try:
            return self.env[value]
        except KeyError:
            raise TileschedError(f"'{user.name}' uses a value the simulator cannot compute",
                                 location_of(user)) from None

    # -------------------------------------------------------------- index math

    def scalar_op(self, op: Operation):
        """Evaluate an ``arith`` op or ``affine.apply``."""
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            if isinstance(attr, IntegerAttr):
                return attr.value.data
            if isinstance(attr, FloatAttr):
                return float(attr.value.data)
            raise TileschedError(f"unsupported constant {attr}", location_of(op))
        if isinstance(op, affine.ApplyOp):
            operands = [int(self.value(v, op)) for v in op.operands]
            dims = op.map.data.num_dims
            return op.map.data.eval(operands[:dims], operands[dims:])[0]
        values = [self.value(v, op) for v in op.operands]
        if op.name not in EVALUATED:
            raise TileschedError(f"the simulator does not evaluate '{op.name}'", location_of(op))
        try:
            return evaluate(op, values)
        except ZeroDivisionError:
            raise TileschedError(f"division by zero in '{op.name}'", location_of(op)) from None
        except (OverflowError, ValueError, TypeError) as err:  # shifts, float -> int of inf/nan
            shown = ", ".join(str(v) for v in values)
            raise TileschedError(f"'{op.name}' cannot be evaluated on ({shown}): {err}",
                                 location_of(op)) from None

    # -------------------------------------------------------------- views and tile ops

    def view(self, op: ViewOp | SlotOp) -> View:
        """Narrow the source view by a window (``tile.view``) or a slot (``tile.slot``)."""
        src = self.value(op.source, op)
        region = list(src.region)
        if isinstance(op, SlotOp):
            k = int(self.value(op.index, op))
            root_dim = src.dims[0]
            lo, hi = region[root_dim]
            if not 0 <= k < hi - lo:
                raise TileschedError(f"tile.slot index {k} is outside 0..{hi - lo - 1}", location_of(op))
            region[root_dim] = (lo + k, lo + k + 1)
            return View(src.buffer, tuple(region), src.dims[1:])
        offsets = [int(self.value(v, op)) for v in op.offsets]
        for root_dim, offset, size in zip(src.dims, offsets, op.size_list, strict=True):
            lo, hi = region[root_dim]
            if offset < 0 or lo + offset + size > hi:
                raise TileschedError(f"tile.view window [{offset}, {offset + size}) is outside its "
                                     f"source dimension of size {hi - lo}", location_of(op))
            region[root_dim] = (lo + offset, lo + offset + size)
        for root_dim, value, size in zip(src.dims, op.valid, op.size_list, strict=False):
            valid = int(self.value(value, op))  # a valid region: tile ops see only its elements
            if not 0 <= valid <= size:
                raise TileschedError(f"tile.view valid extent {valid} is outside 0..{size}",
                                     location_of(op))
            lo, _ = region[root_dim]
            region[root_dim] = (lo, lo + valid)
        return View(src.buffer, tuple(region), src.dims)

    def static_of(self, op: TileOp) -> StaticOp:
        """The static entry of a tile op (routed and timed on first use)."""
        info = self.static.get(op)
        return info if info is not None else self._route(op)

    def tile(self, op: TileOp) -> None:
        """Lower one execution of a tile op (routing and timing computed once per op)."""
        info = self.static.get(op)
        if info is None:
            info = self._route(op)
        env = self.env
        operands = []
        for value, shape in info.operands:
            current = env[value] if value in env else self.value(value, op)
            if shape is not None:
                operands.append((current.buffer, current.region))
            else:
                operands.append(current)
        self.ops.append((info.sid, tuple(operands)))

    def _register(self, op: Operation, **fields) -> StaticOp:
        """Add an op to the static table."""
        info = StaticOp(len(self.statics), issuer=self.issuer, **fields)
        self.statics.append(info)
        self.static[op] = info
        return info

    def _route(self, op: TileOp) -> StaticOp:
        """Unit, duration, queue and properties of a tile op on this target."""
        loc = str(location_of(op) or "?")
        mems = op.memref_operands
        # routing looks at the spaces of the source operands (all memref operands but the last;
        # in-place ops such as ``muls %x, %c, %x`` read their destination's space too)
        reads = tuple(memory_space(v.type) for v in mems[:-1]) if op.read_operands() else ()
        dst = memory_space(mems[-1].type) if mems else None
        rule = self.target.route(op.name, reads, dst)
        unit = op.pipe.data if op.pipe is not None else (rule.unit if rule else None)
        if self.target.cores and unit is not None and unit not in self.target.units:
            unit = qualified(op_core(op, self.target, unit), unit)  # its core's instance
        if unit is None or unit not in self.target.units:
            raise TileschedError(f"no unit of target '{self.target.name}' runs '{op.name}'",
                                 location_of(op))
        if rule is None or rule.unit != unit:
            rule = Route((op.name,), unit)
        duration = op_cycles(op, self.target, rule)
        kind = self.target.units[unit].kind
        queue = rule.async_queue if kind == "async" else None
        if kind == "async" and queue is None:
            queue = next((q for q, u in self.machine.async_queues.items() if u == unit), None)
        shapes = tuple(memref_shape(v.type) if isinstance(v.type, MemRefType) else None
                       for v in op.operands)
        info = self._register(op, name=op.name, unit=unit, duration=int(duration),
                              props=_tile_props(op), loc=loc, async_queue=queue,
                              lds=kind == "lds", shapes=shapes)
        info.operands = tuple(zip(op.operands, shapes, strict=True))
        return info

    def sync(self, op: Operation) -> None:
        """Lower one execution of a sync op (its operand, a ``wait_group`` count or an event
        id, is evaluated: the lowered op carries the value)."""
        info = self.static.get(op)
        if info is None:
            props = {name: _plain(attr) for name, attr in op.properties.items()}
            info = self._register(op, name=op.name, unit=None, duration=0, props=props,
                                  loc=str(location_of(op) or "?"), async_queue=None, lds=False,
                                  shapes=())
            operand_prop = _OPERAND_PROPS.get(op.name)
            if op.operands and operand_prop is not None and operand_prop not in props:
                info.operand_prop = operand_prop
        if info.operand_prop is not None:
            value = self.value(op.operands[0], op)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if not isinstance(value, int):
                raise TileschedError(f"'{op.name}' {info.operand_prop} is {value!r}, not an "
                                     "integer", location_of(op))
            self.ops.append((info.sid, (int(value),)))
        else:
            self.ops.append((info.sid, ()))

    # -------------------------------------------------------------- whole traces

    def trace_op(self, sid: int, operands: tuple, issuer: str) -> TraceOp:
        """The :class:`TraceOp` of one lowered op."""
        info = self.statics[sid]
        if info.is_sync:
            return TraceOp(info.name, issuer, None, 0, (), info.with_operands(operands), info.loc)
        values = tuple(_access(o, shape) if shape is not None else o
                       for o, shape in zip(operands, info.shapes, strict=True))
        return TraceOp(info.name, issuer, info.unit, info.duration, values, info.props, info.loc,
                       info.async_queue, info.lds)

    def trace(self, max_ops: int = MAX_OPS) -> Trace:
        """Run the whole function into a :class:`Trace`; other issuer groups get copies."""
        ops: list[TraceOp] = []
        for chunk in self.chunks():
            if len(ops) + len(chunk.ops) > max_ops:
                where = chunk.mark[1].op if chunk.mark else None
                raise TileschedError(f"the unrolled program exceeds {max_ops} ops",
                                     location_of(where) if where is not None else None)
            ops.extend(self.trace_op(sid, operands, self.issuer) for sid, operands in chunk.ops)
        if self.machine.cores:
            return Trace(self.machine, self.buffers, split_cores(self.machine, ops), ops)
        programs = {self.issuer: ops}
        for other in self.machine.issuers[1:]:
            programs[other] = [replace(op, issuer=other) for op in ops]
        return Trace(self.machine, self.buffers, programs)


_PLAIN, _NESTED, _YIELD, _RETURN, _CONDITION = range(5)
MAX_WHILE_ROUNDS = 1 << 16  # rounds of an scf.while that executes nothing (a hang)
MAX_CALL_DEPTH = 64  # nested func.call frames (recursion)

# Sync ops whose property may instead be an ``index`` operand evaluated at run time.
_OPERAND_PROPS = {"sync.wait_group": "pending", "sync.set_flag": "event",
                  "sync.wait_flag": "event", "sync.cross_set": "id", "sync.cross_wait": "id"}


def split_cores(machine: MachineModel, ops: list[TraceOp]) -> dict[str, list[TraceOp]]:
    """The per-core programs of a split-core model (docs/simulator.md, "Split cores"): every
    core walks the same control flow but issues only its own ops, each in program order. A tile
    op goes to the core of its unit; ``set_flag`` / ``wait_flag`` / ``pipe_barrier`` to the core
    of the units they name; ``barrier_all`` to every core (it orders its own core only);
    ``cross_set`` becomes a ``set_flag`` on the source core, queued on the unit it names, and
    ``cross_wait`` a ``wait_flag`` of the destination core's issuer, both on the cross-core flag
    ``(src core, dst core, id)`` (``program.InstructionCompiler.cross_flag``)."""
    programs: dict[str, list[TraceOp]] = {issuer: [] for issuer in machine.issuers}
    for op in ops:
        props = op.props
        if op.name == "sync.cross_set" or op.name == "sync.cross_wait":
            src, dst = str(props.get("src")), str(props.get("dst"))
            if src not in machine.cores or dst not in machine.cores:
                raise TraceError(f"{op.loc}: {op.name} names an unknown core ({src} -> {dst})")
            setting = op.name == "sync.cross_set"
            issuer = machine.cores[src if setting else dst]
            flag = {"src": qualified(src, str(props.get("unit"))) if setting
                    else machine.cores[src], "dst": machine.cores[dst],
                    "event": props.get("id"), "cross": (src, dst)}
            name = "sync.set_flag" if setting else "sync.wait_flag"
            programs[issuer].append(TraceOp(name, issuer, None, 0, (), flag, op.loc))
            continue
        if op.name == "sync.barrier_all":
            for issuer in machine.issuers:
                programs[issuer].append(replace(op, issuer=issuer))
            continue
        if op.is_sync:
            named = props.get("src") if op.name == "sync.set_flag" else (
                props.get("dst") if op.name == "sync.wait_flag" else props.get("pipe"))
            unit = str(named)
        else:
            unit = str(op.unit)
        issuer = machine.issuer_of_unit(unit) or (unit if unit in machine.issuers else None)
        if issuer is None:
            raise TraceError(f"{op.loc}: {op.name} names {unit!r}, which is on no core of "
                             f"{machine.name} (units are named CORE.UNIT)")
        programs[issuer].append(replace(op, issuer=issuer))
    return programs


def _nothing(op) -> None:
    """The step of an op the simulator ignores (stage borders, deallocations)."""


def _plain(attr):
    """A property attribute as a Python value."""
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, SymbolRefAttr):
        return attr.string_value()
    return str(attr)


def _tile_props(op: TileOp) -> dict:
    """A tile op's properties (and ``value`` / ``accumulate`` written as attributes), plus its
    fusion annotations (``fusion_group``, ``fusion_order``, ``last_use``) when it has them."""
    props = {name: _plain(attr) for name, attr in op.properties.items()}
    for name in ("value", "accumulate"):  # written as attributes in some generic forms
        if name not in props and name in op.attributes:
            props[name] = _plain(op.attributes[name])
    for name in (FUSION_GROUP, FUSION_ORDER):
        if isinstance(op.attributes.get(name), IntegerAttr):
            props[name.removeprefix("tile.")] = op.attributes[name].value.data
    if isinstance(op.attributes.get(LAST_USE), DenseArrayBase):
        props["last_use"] = tuple(bool(v) for v in op.attributes[LAST_USE].get_values())
    return props


def _argument_value(name: str, value: int | float, type_, fn: func.FuncOp) -> int | float:
    """An ``--arg`` value as the argument's type needs it: index and integer arguments take
    integers only (``--arg n=2.5`` is refused, never truncated)."""
    if isinstance(type_, IndexType | IntegerType) and not isinstance(value, int):
        raise TileschedError(f"--arg {name}={value}: %{name} of @{fn.sym_name.data} is {type_}, "
                             "which needs an integer", location_of(fn))
    if (problem := scalar_value_error(type_, value)) is not None:
        raise TileschedError(f"--arg {name}={value}: %{name} of @{fn.sym_name.data}: {problem}",
                             location_of(fn))
    if isinstance(type_, IntegerType):  # as the machine holds it (a signless i8 200 is -56)
        width = type_.width.data
        return value & 1 if width == 1 else (value + (1 << (width - 1))) % (1 << width) \
            - (1 << (width - 1))
    return float(value) if isinstance(type_, AnyFloat) else value


def find_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The function to simulate: ``name`` if given, else the first one with a body."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    if name is not None:
        functions = [f for f in functions if f.sym_name.data == name]
    if not functions:
        what = f"function @{name}" if name else "function with a body"
        raise TileschedError(f"no {what} to simulate", location_of(module))
    return functions[0]


def lower_module(module: ModuleOp, target: Target, args: dict[str, int | float] | None = None,
                 function: str | None = None, strict_args: bool = True,
                 max_ops: int = MAX_OPS) -> Trace:
    """Unroll ``module``'s function into a trace for ``target`` (see the module docstring).

    With ``strict_args`` an ``args`` entry the function does not take is an error (a typo in
    ``--arg``); ``equiv`` relaxes this, since a transformed program may take fewer arguments.
    """
    lowering = Lowering(target, args or {}, strict_args)
    lowering.function(find_function(module, function))
    return lowering.trace(max_ops)


def parse_arg_values(items: list[str] | None) -> dict[str, int | float]:
    """``["n=16", "scale=0.5"]`` -> ``{"n": 16, "scale": 0.5}`` (a usage error otherwise)."""
    values: dict[str, int | float] = {}
    for item in items or []:
        name, sep, text = item.partition("=")
        name = name.strip().lstrip("%")
        if not sep or not name:
            raise TileschedError(f"--arg expects NAME=VALUE, got '{item}'")
        try:
            values[name] = int(text, 0)
        except ValueError:
            try:
                values[name] = float(text)
            except ValueError:
                raise TileschedError(f"--arg {name}: '{text}' is not a number") from None
    return values


def _does_nothing(body) -> bool:
    """Is a loop body only a terminator yielding its ``iter_args`` unchanged (or nothing)?"""
    terminator = body.first_op
    return terminator is body.last_op and isinstance(terminator, scf.YieldOp) \
        and list(terminator.operands) == list(body.args[1:])
