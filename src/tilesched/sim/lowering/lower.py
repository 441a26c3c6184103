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

from dataclasses import replace

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Block, Operation, SSAValue

from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.ir.tile import (
    SlotOp,
    StageBorderOp,
    TileOp,
    ViewOp,
)
from tilesched.ir.types import memory_space, memref_shape, scalar_value_error
from tilesched.sim.isa import ITER
from tilesched.sim.lowering.control_flow import ControlFlow
from tilesched.sim.lowering.cores import split_cores
from tilesched.sim.lowering.lowered import Chunk, LoopFrame, StaticOp, View, valid_access
from tilesched.sim.lowering.ops import OpLowering
from tilesched.sim.trace import Buffer, MachineModel, Trace, TraceOp, UnitSpec
from tilesched.target.model import Target

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


class Lowering(ControlFlow, OpLowering):
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

    def trace_op(self, sid: int, operands: tuple, issuer: str) -> TraceOp:
        """The :class:`TraceOp` of one lowered op."""
        info = self.statics[sid]
        if info.is_sync:
            return TraceOp(info.name, issuer, None, 0, (), info.with_operands(operands), info.loc)
        values = tuple(valid_access(o, shape) if shape is not None else o
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

def _nothing(op) -> None:
    """The step of an op the simulator ignores (stage borders, deallocations)."""


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
