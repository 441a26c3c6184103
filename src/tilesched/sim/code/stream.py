"""A program the engine reads while the lowering runs: no trace is ever materialized.

:class:`StreamedProgram` drives one :class:`~tilesched.sim.lowering.lower.Lowering` (which yields chunks of
lowered ops at loop boundaries) and compiles each chunk for each issuer group as that group
reaches it (``chunk_compiler.py``); chunks every group has passed are dropped, so memory follows
the loop body, not the trip count. A loop boundary becomes a ``MARK`` instruction ``(MARK, kind,
loop, n, frame)``.

Op references. An instruction names its op by ``(position * issuers + issuer) * MAX_STATIC +
sid``: the op's index in its issuer's program, the issuer, and the lowering's static op (which has
the name, location and unit reports need).

Memory use is decided before the run from the IR: for each buffer origin (function argument or
``memref.alloc``) which agents touch it and whether anybody reads or writes it. Buffers no race
can touch are skipped by the race detector, and operands that matter to nothing (never written;
or never read, race-free and on no pipelined unit) are left out of the instructions altogether.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from xdsl.dialects import func
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument, Operation, SSAValue

from tilesched.diagnostics import TileschedError
from tilesched.ir.text import location_of
from tilesched.ir.tile import SlotOp, TileOp, ViewOp
from tilesched.ir.types import memory_space
from tilesched.sim import native
from tilesched.sim.code.chunk_compiler import GroupCompiler
from tilesched.sim.code.program import (
    InstructionCompiler,
    MemoryUse,
    Program,
    virtual_buffer,
)
from tilesched.sim.isa import INLINE, ITER, MAX_STATIC, VIRTUAL_STRIDE
from tilesched.sim.lowering.lower import Lowering, find_function
from tilesched.sim.lowering.lowered import StaticOp
from tilesched.sim.trace import TraceError


class _SyncOp(NamedTuple):
    """The fields of a sync op :meth:`InstructionCompiler.sync` reads."""

    name: str
    props: dict
    loc: str


def _place(chunk, frame, iteration: int, start: int) -> tuple:
    """Which chunk of its iteration of ``frame``'s loop ``chunk`` is (iteration ``iteration``,
    starting at program position ``start``): its position in the iteration, the boundary it
    ends at (the loop's own marks counted from the iteration), and the iterations of the loops
    nested in the iteration it belongs to."""
    mark = chunk.mark
    inner = []
    nested = False
    for f, current, _ in chunk.where:
        if nested:
            inner.append((f.loop, current))
        nested = nested or f is frame
    if mark is not None:
        mark = (mark[0], mark[1].loop, mark[2] - iteration if mark[1] is frame else mark[2])
    return (chunk.base - start, mark, tuple(inner))


class StreamedProgram(Program):
    """The instructions of a lowering, produced as the engine asks for them."""

    def __init__(self, lowering: Lowering, function: func.FuncOp, with_accesses: bool = True,
                 max_ops: int | None = None):
        compiler = InstructionCompiler(lowering.machine, lowering.buffers, with_accesses)
        compiler.virtual_stride = VIRTUAL_STRIDE
        issuers = len(lowering.machine.issuers)
        super().__init__(compiler.agents, compiler.inline_units, [[] for _ in range(issuers)],
                         lowering.statics, compiler.flags, compiler.fed(), compiler.lds_agents(),
                         [], _Names(lowering.buffers), [], MemoryUse([], frozenset()),
                         lowering.machine, VIRTUAL_STRIDE)
        self.lowering = lowering
        self.compiler = compiler
        self.with_accesses = with_accesses
        self.issuers = issuers
        self.stream = _ChunkStream(lowering, issuers)
        self.use = _StaticMemoryUse(lowering, function, compiler)
        self.groups = [GroupCompiler(self, i) for i in range(issuers)]
        self.memory = self.use.memory
        self._max_pending = self.use.max_pending
        self.max_ops = max_ops
        self.simulated = 0  # program ops lowered and compiled (by the first group)
        self._empty_chunks = 0  # iterations without ops (of scalar-only bodies)
        self._open_iteration = None  # the loop whose iteration the next chunk ends, if no other
        self.spans = 0  # fused spans (docs/fuse-tiles.md) among them
        self._span_starts: set[int] = set()  # sids that open a fused span (fusion_order 0)
        self._span_checked = 0  # statics looked at for _span_starts
        self.why_not_steady = None  # callable: loop op -> why it was simulated in full

    # ------------------------------------------------------------------ Program interface

    @property
    def max_pending(self) -> int:
        return self._max_pending

    def chunks(self, issuer: int):
        """The issuer's instructions, chunk by chunk."""
        while True:
            chunk = self.stream.take(issuer)
            if chunk is None:
                return
            yield self.compile(issuer, chunk)

    def op_of(self, op: int) -> StaticOp:
        return self.lowering.statics[op % MAX_STATIC]

    @property
    def op_table(self):
        return _OpTable(self)

    def position(self, op: int) -> tuple[int, int]:
        return divmod(op // MAX_STATIC, self.issuers)

    def replay_periodic_iterations(self) -> None:
        self.lowering.replay = True

    def batch_replayed_iterations(self, max_ops: int = 4096) -> None:
        """Hand replayed iterations over whole periods at a time (up to ``max_ops`` ops per
        chunk), each issuer group making their instructions from its own of the period before
        (``replay.Repeat``). Only for ``sim --full``'s compiled engine, which does nothing at
        loop boundaries: steady-state detection needs a chunk per iteration. Does nothing when
        ``native/repeat.pyx`` was not built."""
        if native.use(native.repeat) is None or native.use(native.producers) is None:
            return
        self.lowering.replay = True
        self.lowering.batch = max_ops
        for group in self.groups:
            group.keep_recent()

    def take_violations(self) -> list[tuple[str, str]]:
        found = self.compiler.violations
        if not found:
            return []
        self.compiler.violations = []
        return found

    def jump(self, frame, skipped: int, positions: dict, advance: int, segment, engine) -> None:
        """Move every issuer group ``skipped`` iterations of ``frame``'s loop forward, keeping
        its place inside the iteration (``steady.py``). The lowering restarts at the iteration
        the last group is in and lowers again up to the leading group, which is at an ``ITER``
        mark; each group's current chunk is recompiled, its place in it kept.

        A chunk is found again by its program position relative to the start of its iteration
        and by the boundary it ends at (:func:`_place`): positions count the ops of extrapolated
        nested loops too, so the place is the same whether the nested loops of the iteration
        were extrapolated when it was first lowered or not (the lowering now lowers all of
        them)."""
        stream = self.stream
        targets = {}
        for i in range(self.issuers):
            if engine.done[i]:
                continue
            chunk = stream.chunks[stream.next[i] - 1 - stream.first]
            tag = next(w for w in chunk.where if w[0] is frame)
            targets[i] = (tag[1] + skipped, _place(chunk, frame, tag[1], positions[tag[1]]))
        first = min(x for x, _ in targets.values())
        starts = {first: positions[first - skipped] + advance}
        self.lowering.jump(frame, first, starts[first], segment.carried_at(first))
        found: dict[int, int] = {}
        produced: list = []
        last = max(x for x, _ in targets.values())
        while len(found) < len(targets):
            chunk = next(stream.source)
            produced.append(chunk)
            tag = next((w for w in chunk.where if w[0] is frame), None)
            if tag is not None and tag[1] in starts:
                place = (tag[1], _place(chunk, frame, tag[1], starts[tag[1]]))
                for i, target in targets.items():
                    if i not in found and place == target:
                        found[i] = len(produced) - 1
            mark = chunk.mark
            if mark is not None and mark[0] == ITER and mark[1] is frame:
                starts[mark[2]] = chunk.base + len(chunk)
            if mark is None or (tag is not None and tag[1] > last):
                raise RuntimeError("steady-state jump: the lowering did not repeat its chunks")
        keep = min(found.values())
        base = stream.first + len(stream.chunks)
        stream.chunks = deque(produced[keep:])
        stream.first = base
        for i, index in found.items():
            stream.next[i] = base + index - keep + 1
            engine.code[i] = self.compile(i, produced[index])
        self.compiler.violations = []  # counted when these chunks were first compiled

    # ------------------------------------------------------------------ compiling chunks

    def compile(self, issuer: int, chunk) -> list[tuple]:
        """The instructions of one lowered chunk for one issuer group (``chunk_compiler.py``)."""
        self.use.classify_new_buffers()
        if issuer == 0:
            self._count(chunk)
        return self.groups[issuer].code(chunk, self.issuers * MAX_STATIC)

    def _count(self, chunk) -> None:
        """Ops simulated so far, fused spans among them, and the ``--max-ops`` guard."""
        self.simulated += len(chunk)
        mark = chunk.mark  # an iteration of a scalar-only body counts as one op: a chunk closing
        if not len(chunk) and mark is not None and mark[1] is self._open_iteration:  # one
            self._empty_chunks += 1
        self._open_iteration = mark[1] if mark is not None and mark[0] == ITER else None
        statics = self.lowering.statics
        while self._span_checked < len(statics):
            props = statics[self._span_checked].props
            if props.get("fusion_group") is not None and props.get("fusion_order") == 0:
                self._span_starts.add(self._span_checked)
            self._span_checked += 1
        if self._span_starts:
            self.spans += self._spans(chunk.ops)
            repeat = chunk.repeat
            if repeat is not None:
                periods = repeat.count // repeat.period
                self.spans += periods * sum(self._spans(ops) for ops in repeat.templates)
        if self.max_ops is not None and self.simulated + self._empty_chunks > self.max_ops:
            raise self._too_many_ops()

    def _spans(self, ops: list) -> int:
        """Fused spans opened in a list of lowered ops."""
        statics, starts = self.lowering.statics, self._span_starts
        return sum(1 for (sid, _), (nxt, _) in zip(ops, ops[1:], strict=False)
                   if sid in starts and statics[nxt].props.get("fusion_group") ==
                   statics[sid].props["fusion_group"])

    def progress(self) -> tuple[int, int]:
        """``(ops done, estimated total)``: program positions, extrapolated ops included."""
        done = self.lowering.base
        return done, max(done, self._estimate()[1])

    def _estimate(self):
        """The loop whose full run makes the program long, and the ops the program would take."""
        frames = self.lowering.frames
        position = self.lowering.base
        worst, total = None, position
        for frame in frames:
            done = max(frame.current, 0) + 1
            per = max(1, (position - frame.start_position) // done)
            estimate = frame.start_position + per * frame.trips
            if estimate > total:
                worst, total = frame, estimate
        return worst, total

    def _too_many_ops(self) -> TileschedError:
        """The located ``--max-ops`` error: the loop that makes the run long and what it costs."""
        worst, total = self._estimate()
        if worst is None and self.lowering.frames:
            worst = self.lowering.frames[0]
        total = max(total, self.simulated + self._empty_chunks)
        message = f"simulating every op would take at least {total:,} ops, more than --max-ops " \
                  f"{self.max_ops:,}"
        loc = None
        if worst is not None:
            loc = location_of(worst.op)
            message = (f"this loop runs {worst.trips:,} iterations: simulating every op would "
                       f"take about {total:,} ops, more than --max-ops {self.max_ops:,}")
            why = self.why_not_steady(worst.op) if self.why_not_steady else None
            if why:
                message += f"; it was not extrapolated because {why}"
        return TileschedError(message + " (raise --max-ops, or lower the trip count)", loc)

    def sync_instruction(self, info: StaticOp, operands: tuple, issuer: int) -> tuple | None:
        """A sync op's instruction with op reference 0 (``InstructionCompiler.sync``; a
        ``wait_group`` count or an event id computed at run time is its operand)."""
        return self.compiler.sync(_SyncOp(info.name, info.with_operands(operands), info.loc),
                                  issuer, 0)


class _OpTable:
    """``op_table[ref]`` of a streamed program's recorded timeline."""

    def __init__(self, program: StreamedProgram):
        self.program = program

    def __getitem__(self, ref: int) -> StaticOp:
        return self.program.op_of(ref)


class _Names:
    """``buffer_names`` of a streamed program: the lowering's buffers as they are created."""

    def __init__(self, buffers: list):
        self.buffers = buffers

    def __len__(self) -> int:
        return len(self.buffers)

    def __getitem__(self, index: int) -> str:
        return self.buffers[index].name


class _ChunkStream:
    """The lowering's chunks, kept from the oldest one an issuer group still needs."""

    def __init__(self, lowering: Lowering, issuers: int):
        self.source = lowering.chunks()
        self.chunks: deque = deque()
        self.first = 0  # index of chunks[0]
        self.next = [0] * issuers
        self.ended = False

    def take(self, issuer: int):
        """The next chunk for ``issuer`` (``None`` after the last one)."""
        index = self.next[issuer]
        while index >= self.first + len(self.chunks):
            if self.ended:
                return None
            chunk = next(self.source, None)
            if chunk is None:
                self.ended = True
                return None
            self.chunks.append(chunk)
            if chunk.mark is None:
                self.ended = True
        chunk = self.chunks[index - self.first]
        self.next[issuer] = index + 1
        oldest = min(self.next) - 1  # every group's current chunk stays (steady.py reads it)
        while self.first < oldest and self.chunks:
            self.chunks.popleft()
            self.first += 1
        return chunk


class _StaticMemoryUse:
    """Who touches which buffer origin, from the IR (see the module docstring)."""

    def __init__(self, lowering: Lowering, function: func.FuncOp, compiler: InstructionCompiler):
        self.lowering = lowering
        self.compiler = compiler
        self.classes: dict[tuple, dict] = {}  # (origin, group or None) -> users/read/written
        self.readers: dict = {}  # origin -> the tile ops that read it
        self.exact = True
        self.max_pending = 0
        self.race_free: set[int] = set()
        self.dropped: set[int] = set()
        self.classified = 0
        pipelined = {a.index for a in compiler.agents if a.pipelined}
        for op in function.walk():
            if isinstance(op, TileOp):
                self._tile(op)
            elif isinstance(op, func.CallOp):
                self.exact = False  # the callee's accesses are not in this walk: assume any
            elif op.name == "sync.wait_group":
                pending = op.properties.get("pending")
                if pending is None:
                    self.max_pending = 1 << 30  # a count computed at run time: keep all groups
                else:
                    self.max_pending = max(self.max_pending, pending.value.data)
        self.free_classes = set()
        self.dropped_classes = set()
        accessing = set()
        for key, use in self.classes.items():
            free = len(use["users"]) <= 1 or not use["written"]
            if free:
                self.free_classes.add(key)
            else:
                accessing |= use["users"]
            if not use["written"] or (not use["read"] and free
                                      and not use["users"] & pipelined):
                self.dropped_classes.add(key)
        if not self.exact:
            self.free_classes.clear()
            self.dropped_classes.clear()
            accessing = {a.index for a in compiler.agents}
        self.memory = MemoryUse(sorted(accessing), self.race_free)
        self.classify_new_buffers()

    def _tile(self, op: TileOp) -> None:
        """Record the users of each memref operand's origin, per issuer group."""
        try:
            info = self.lowering.static_of(op)
        except TileschedError:
            return  # the op cannot run; lowering reports it if it is ever executed
        mems = [v for v in op.operands if isinstance(v.type, MemRefType)]
        if not mems:
            return
        writes = [len(mems) - 1] if op.name != "tile.call" else list(range(len(mems)))
        reads = list(range(len(mems) - 1)) if op.name != "tile.call" else list(range(len(mems)))
        if op.name == "tile.matmul" and info.props.get("accumulate"):
            reads.append(len(mems) - 1)
        private = self.compiler.machine.private_spaces
        groups = len(self.compiler.machine.issuers)
        for issuer in range(groups):
            try:
                kind, where = self.compiler.route(info, issuer)
            except Exception:  # noqa: BLE001 - a route error is reported when the op runs
                return
            agent = issuer if kind == INLINE else where
            for k, value in enumerate(mems):
                origin = _origin(value)
                if origin is None:
                    self.exact = False
                    return
                space = _space(value)
                key = (origin, issuer if groups > 1 and space in private else None)
                use = self.classes.setdefault(key, {"users": set(), "read": False,
                                                    "written": False})
                use["users"].add(agent)
                use["read"] |= k in reads
                use["written"] |= k in writes
                if k in reads:
                    self.readers.setdefault(origin, set()).add(op)

    def read_outside(self, buf: int, loop) -> bool:
        """Does any op outside ``loop`` (or an op the analysis could not place) read ``buf``?"""
        if not self.exact:
            return True
        readers = self.readers.get(self.lowering.origins[buf], ())
        return any(not loop.is_ancestor(op) for op in readers)

    def classify_new_buffers(self) -> None:
        """Put buffers created since the last call into the race-free / dropped sets."""
        origins = self.lowering.origins
        groups = len(self.compiler.machine.issuers)
        while self.classified < len(origins):
            buf = self.classified
            origin = origins[buf]
            for group in (None, *range(groups)):
                key = (origin, group)
                ident = buf if group is None else virtual_buffer(buf, group, VIRTUAL_STRIDE)
                if key in self.free_classes:
                    self.race_free.add(ident)
                if key in self.dropped_classes:
                    self.dropped.add(ident)
            self.classified += 1


def _origin(value: SSAValue):
    """The function argument or ``memref.alloc`` a memref value is a view of (``None``: unknown)."""
    while True:
        owner = value.owner
        if isinstance(value, BlockArgument):
            parent = owner.parent_op() if owner is not None else None
            return value if isinstance(parent, func.FuncOp) else None
        if isinstance(owner, ViewOp | SlotOp):
            value = owner.source
            continue
        if isinstance(owner, Operation) and owner.name == "memref.alloc":
            return owner
        return None


def _space(value: SSAValue) -> str | None:
    return memory_space(value.type)


def stream_module(module, target, args: dict | None = None, function: str | None = None,
                  strict_args: bool = True, with_accesses: bool = True,
                  max_ops: int | None = None) -> StreamedProgram:
    """A :class:`StreamedProgram` of ``module``'s function on ``target`` (arguments bound now,
    so a missing ``--arg`` is reported before the run)."""
    if target.cores:  # each core walks its own program: the whole trace (split_cores) runs it
        raise TraceError(f"target '{target.name}' has cores ({', '.join(target.cores)}): its "
                         "programs are simulated whole (lower_module + simulate), not streamed")
    fn = find_function(module, function)
    lowering = Lowering(target, args or {}, strict_args)
    lowering.function(fn)
    return StreamedProgram(lowering, fn, with_accesses, max_ops)
