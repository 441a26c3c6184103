"""Compile a :class:`~tilesched.sim.trace.Trace` into the engine's flat instruction lists.

The timing engine is the simulator's hot loop, so it never looks at dataclasses: each issuer's
program becomes a list of small tuples whose first field is an opcode, every unit instance and
issuer becomes an *agent* (an index), every event flag an integer id, and every memref operand a
tuple ``(buffer, region, is_write, history_key)``. Errors that only depend on the trace text
(an event id at or above the limit, a negative ``wait_group`` count, an unknown group queue) are
found here and handed to the engine as static violations.

Agents: issuers first (index = position in ``machine.issuers``), then one agent per non-inline unit
(``queued``, ``async``, ``lds``); with several issuer groups every non-inline unit has one
instance per group, named ``UNIT@group``. Inline units are *resources* shared by the issuers.

Over 500 lines on purpose: the per-op loop of :meth:`InstructionCompiler.issuer_code` has a
compiled twin (``native/producers.pyx``) that reads the translators' state, so the compiler and
its two translators stay one module, as the twin is.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass, field

from tilesched.sim import native
from tilesched.sim.isa import (
    BALL,
    BAR,
    COMMIT,
    ENQ,
    INLINE,
    ISET,
    IWAIT,
    NOP,
    PIPE_BARRIER,
    PRIO,
    SET,
    TILE,
    WAIT,
    WAITG,
    reference_at,
)
from tilesched.sim.trace import (
    SYNC_OPS,
    Access,
    MachineModel,
    Trace,
    TraceError,
    TraceOp,
    group_share,
)

CHUNK = 1024  # instructions per chunk handed to the engine (Program.chunks)


@dataclass(frozen=True, slots=True)
class Agent:
    """Something that executes ops in order: an issuer or one instance of a non-inline unit."""

    index: int
    name: str
    kind: str  # "issuer", "queued", "async" or "lds"
    unit: str  # the machine model's unit name (the issuer name for issuers)
    owner: int  # issuing group (its own index for issuers)
    pipelined: bool = False


@dataclass(frozen=True, slots=True)
class Flag:
    """An event flag ``(src, dst, event)`` of one issuer group."""

    src: int
    dst: int
    pair: str
    event: int


@dataclass
class Program:
    """Everything the engine executes, in flat form."""

    agents: list[Agent]
    inline_units: list[str]
    code: list[list[tuple]]  # per issuer
    ops: list[TraceOp]
    flags: list[Flag]
    fed: list[list[int]]  # per issuer: the non-inline agents it enqueues to
    lds_agent: list[int | None]  # per issuer
    static_violations: list[tuple[str, str]] = field(default_factory=list)

    buffer_names: list[str] = field(default_factory=list)
    bases: list[int] = field(default_factory=list)  # index of each issuer's first op in ``ops``
    memory: MemoryUse | None = None
    machine: MachineModel | None = None
    virtual_stride: int = 0  # buffer ids of per-group copies (0: the number of buffers)

    def __post_init__(self) -> None:
        if self.memory is None:
            self.memory = memory_use(self.code, self.agents)

    @property
    def issuer_count(self) -> int:
        return len(self.code)

    def chunks(self, issuer: int):
        """The issuer's instructions as an iterator of lists of at most :data:`CHUNK`: the
        engine reads each soon after the bound tracker did (``IssuerWalk._fetch``), while its
        tuples are still in the processor's cache."""
        code = self.code[issuer]
        if len(code) <= CHUNK:
            return iter((code,))
        return (code[start:start + CHUNK] for start in range(0, len(code), CHUNK))

    def op_of(self, op: int) -> TraceOp:
        """The trace op an instruction's op reference names."""
        return self.ops[op]

    @property
    def op_table(self):
        """Op references -> trace ops, indexable (the recorded timeline's ``op_table``)."""
        return self.ops

    def take_violations(self) -> list[tuple[str, str]]:
        """Violations found while compiling instructions since the last call (none here: a
        trace is compiled before the run, into ``static_violations``)."""
        return []

    def replay_periodic_iterations(self) -> None:
        """Replay proven-periodic loop iterations instead of lowering them again (a streamed
        program's, ``lowering/replay.py``); a trace's program has no loops left: nothing."""

    def batch_replayed_iterations(self) -> None:
        """Hand replayed iterations over whole periods at a time (a streamed program's, for the
        compiled engine); a trace's program has no loops left: nothing."""

    @functools.cached_property
    def max_pending(self) -> int:
        """The largest ``wait_group`` pending count (how many committed groups to remember)."""
        return max((ins[2] for code in self.code for ins in code if ins[0] == WAITG), default=0)

    def position(self, op: int) -> tuple[int, int]:
        """``(index in its issuer's program, issuer)``: program order first, then the group."""
        issuer = bisect.bisect_right(self.bases, op) - 1
        return op - self.bases[issuer], issuer

    def buffer_label(self, buf: int) -> str:
        """Name of a (possibly virtual, per-group) buffer id for reports."""
        count = self.virtual_stride or len(self.buffer_names)
        if buf < count:
            return self.buffer_names[buf]
        return f"{self.buffer_names[buf % count]}@{self.agents[buf // count - 1].name}"


class InstructionCompiler:
    """Translates trace ops into instruction tuples: agents, flags, routes and memory operands.

    Shared by :func:`compile_trace` (a whole trace at once) and the streamed lowering
    (``stream.py``, op by op as the lowering runs). ``buffers`` may grow meanwhile.
    """

    def __init__(self, machine: MachineModel, buffers: list, with_accesses: bool = True):
        self.with_accesses = with_accesses
        self.machine = machine
        self.agents: list[Agent] = []
        self.instances: dict[tuple[str, int], int] = {}
        self.inline_units = [n for n, s in self.machine.units.items() if s.kind == "inline"]
        self.inline_index = {n: i for i, n in enumerate(self.inline_units)}
        self.flags: list[Flag] = []
        self.flag_ids: dict[tuple, int] = {}
        self.ops: list[TraceOp] = []
        self.violations: list[tuple[str, str]] = []
        self.flag_ops: dict[tuple, tuple] = {}
        self.buffers = buffers
        self.groups = self.machine.sharing_groups
        self.virtual_stride = len(buffers)  # see virtual_buffer
        self.routes: dict[tuple, tuple[int, int]] = {}  # (unit, queue, lds, issuer) -> route
        self._private: dict[int, bool] = {}  # buffer -> in a private (per-group) space
        self.max_pending = 0  # the largest wait_group count translated (by _SyncTranslator)
        self._make_agents()

    def _make_agents(self) -> None:
        """Issuers first, then one instance per (non-inline unit, issuer group) as documented."""
        issuers = self.machine.issuers
        for i, name in enumerate(issuers):
            self.agents.append(Agent(i, name, "issuer", name, i))
        for unit, spec in self.machine.units.items():
            if spec.kind == "inline":
                continue
            if self.machine.cores:  # one instance, fed by its core's issuer
                i = issuers.index(self.machine.issuer_of_unit(unit))
                agent = Agent(len(self.agents), unit, spec.kind, unit, i, spec.pipelined)
                self.instances[(unit, i)] = agent.index
                self.agents.append(agent)
                continue
            for i, issuer in enumerate(issuers):
                name = unit if len(issuers) == 1 else f"{unit}@{issuer}"
                agent = Agent(len(self.agents), name, spec.kind, unit, i, spec.pipelined)
                self.instances[(unit, i)] = agent.index
                self.agents.append(agent)

    def place(self, name: str, issuer: int, op: TraceOp) -> int:
        """The agent that runs a sync op placed on unit ``name`` (an issuer for inline units)."""
        if name in self.machine.issuers:
            return self.machine.issuers.index(name)
        spec = self.machine.units.get(name)
        if spec is None:
            raise TraceError(f"{op.loc}: {op.name} names unknown unit {name!r}")
        if spec.kind == "inline":
            return issuer
        if self.machine.cores:
            return self.instances[(name, self.machine.issuers.index(
                self.machine.issuer_of_unit(name)))]
        return self.instances[(name, issuer)]

    def flag(self, op: TraceOp, issuer: int) -> int:
        """Intern the flag an op names, checking its event id against the limit."""
        try:
            src, dst, event = op.props["src"], op.props["dst"], int(op.props["event"])
        except KeyError as missing:
            raise TraceError(f"{op.loc}: {op.name} needs property {missing}") from None
        cross = op.props.get("cross")
        if cross is not None:
            return self.cross_flag(op, cross, src, dst, event)
        limit = self.machine.event_limit
        if event < 0 or (limit is not None and event >= limit):
            self.violations.append(("event-id-out-of-range",
                                    f"{op.loc}: {op.name} {src}->{dst} uses event id {event}, "
                                    f"but the target has {limit} per unit pair"))
        key = (0 if self.machine.cores else issuer, src, dst, event)
        if key not in self.flag_ids:
            self.flag_ids[key] = len(self.flags)
            self.flags.append(Flag(self.place(src, issuer, op), self.place(dst, issuer, op),
                                   f"{src}->{dst}", event))
        return self.flag_ids[key]

    def cross_flag(self, op: TraceOp, cores: tuple, src: str, dst: str, event: int) -> int:
        """Intern cross-core flag ``(src core, dst core, id)`` (a split-core model's
        ``sync.cross_set`` / ``cross_wait``, lowered to ``set_flag`` / ``wait_flag`` with a
        ``cross`` property): set by the unit its set names (``src``: ``AIC.FIX``), waited by
        the destination core's issuer (``dst``); checked against ``cross_event_limit``."""
        limit = self.machine.cross_event_limit
        if event < 0 or (limit is not None and event >= limit):
            self.violations.append(("event-id-out-of-range",
                                    f"{op.loc}: {op.name} {cores[0]}->{cores[1]} uses cross-core "
                                    f"flag id {event}, but the target has {limit}"))
        key = ("cross", cores[0], cores[1], event)
        setter = self.place(src, 0, op) if op.name == "sync.set_flag" else None
        index = self.flag_ids.get(key)
        if index is None:
            index = self.flag_ids[key] = len(self.flags)
            first = setter if setter is not None else self.place(src, 0, op)
            self.flags.append(Flag(first, self.place(dst, 0, op), f"{cores[0]}->{cores[1]}",
                                   event))
        elif setter is not None and self.flags[index].src != setter:
            old = self.flags[index]  # the flag was first seen by its wait: its setter now
            self.flags[index] = Flag(setter, old.dst, old.pair, old.event)
        return index

    def accesses(self, op: TraceOp, issuer: int) -> tuple:
        """Flat ``(buffer, region, is_write, history_key)`` tuples for an op's memref operands.

        With several issuer groups, a private-space buffer becomes one virtual buffer per group
        (:func:`virtual_buffer`) and a write to shared memory covers the group's share only.
        """
        mems = [o for o in op.operands if type(o) is Access]
        if not mems:
            return ()
        buffers = self.buffers
        for a in mems:
            if not 0 <= a.buffer < len(buffers) or len(buffers[a.buffer].shape) != len(a.region):
                raise TraceError(f"{op.loc}: an operand of {op.name} does not fit the buffer "
                                 f"table")
        return self.accesses_of(op.name, bool(op.props.get("accumulate")), mems, op.loc, issuer)

    def accesses_of(self, name: str, accumulate: bool, mems, loc: str, issuer: int) -> tuple:
        """:meth:`accesses` of memref operands given as objects with ``buffer``, ``region`` and
        ``shape`` (already checked against the buffer table)."""
        if name == "tile.call":
            pairs = [(a, True) for a in mems]
        elif self.groups == 1 and not (name == "tile.matmul" and accumulate):
            last = mems[-1]
            out = [(a.buffer, a.region, False, (a.region, loc)) for a in mems[:-1]]
            out.append((last.buffer, last.region, True, (last.region, loc)))
            return tuple(out)
        else:
            pairs = [(a, False) for a in mems[:-1]]
            if name == "tile.matmul" and accumulate:
                pairs.append((mems[-1], False))
            pairs.append((mems[-1], True))
        if self.groups > 1:
            return self._group_accesses(pairs, loc, issuer)
        return tuple((a.buffer, a.region, w, (a.region, loc)) for a, w in pairs)

    def _group_accesses(self, pairs, loc: str, issuer: int) -> tuple:
        """Accesses of one of several cooperating issuer groups (see ``docs/simulator.md``).

        Private-space buffers are per-group copies. A write to shared memory covers the group's
        share; when the destination is shared, inputs of the destination's shape (elementwise
        correspondence) are read only in the same share, other inputs in full.
        """
        dst = pairs[-1][0]
        narrow = (pairs[-1][1] and len(pairs) > 1
                  and self.buffers[dst.buffer].space not in self.machine.private_spaces)
        out = []
        private = self._private
        for access, write in pairs:
            buf, region = access.buffer, access.region
            is_private = private.get(buf)
            if is_private is None:
                is_private = private[buf] = \
                    self.buffers[buf].space in self.machine.private_spaces
            if is_private:
                buf = virtual_buffer(buf, issuer, self.virtual_stride)
            elif write or (narrow and access.shape == dst.shape):
                region = group_share(region, issuer, self.groups)
                if region is None:
                    continue
            out.append((buf, region, write, (region, loc)))
        return tuple(out)

    def tile(self, op: TraceOp, issuer: int, index: int) -> tuple:
        """Route a tile op: an inline instruction or an enqueue to a unit instance."""
        code, where = self.route(op, issuer)
        item = (TILE, op.duration, index, self.accesses(op, issuer) if self.with_accesses else ())
        return (code, where, item)

    def route(self, op, issuer: int) -> tuple[int, int]:
        """``(INLINE, inline unit index)`` or ``(ENQ, agent)`` for a tile op of ``issuer``."""
        if not isinstance(op.duration, int) or op.duration < 0:
            raise TraceError(f"{op.loc}: {op.name} has invalid duration {op.duration!r}")
        key = (op.unit, op.async_queue, op.lds, issuer)
        found = self.routes.get(key)
        if found is None:
            found = self.routes[key] = self._route(op, issuer)
        return found

    def _route(self, op, issuer: int) -> tuple[int, int]:
        """:meth:`route`, computed (the result depends on unit, queue, LDS flag and issuer)."""
        unit = op.unit
        if op.async_queue is not None:
            unit = self.machine.async_queues.get(op.async_queue)
            if unit is None:
                raise TraceError(f"{op.loc}: {op.name} uses unknown async queue {op.async_queue}")
        elif op.lds:
            unit = self.machine.lds_unit
            if unit is None:
                raise TraceError(f"{op.loc}: {op.name} is an LDS op but the target has no LDS unit")
        if unit is None or unit not in self.machine.units:
            raise TraceError(f"{op.loc}: {op.name} runs on unknown unit {unit!r}")
        if unit in self.inline_index:
            return INLINE, self.inline_index[unit]
        return ENQ, self.instances[(unit, issuer)]

    def sync(self, op: TraceOp, issuer: int, index: int) -> tuple | None:
        """Translate one sync op (``None`` when this issuer group does not execute it)."""
        name, props = op.name, op.props
        if name == "sync.set_flag" or name == "sync.wait_flag":
            key = (issuer, name, op.loc, props.get("src"), props.get("dst"), props.get("event"))
            known = self.flag_ops.get(key)
            if known is None:
                known = self.flag_ops[key] = self.flag_op(op, issuer)
            on_issuer, code, agent, flag, bad = known
            if bad:
                self.violations.append(bad)
            if on_issuer:
                return (code, flag, index)
            return (ENQ, agent, (code, flag, index, ()))
        if name == "sync.pipe_barrier":
            agent = self.place(str(props.get("pipe", "")), issuer, op)
            return (NOP, index) if agent == issuer else (ENQ, agent, (PIPE_BARRIER, 0, index, ()))
        if name == "sync.barrier_all":
            return (BALL, index)
        if name in ("sync.commit_group", "sync.wait_group"):
            return self.group_op(op, issuer, index)
        if name == "sync.cond_barrier":
            group = props.get("group")
            if group not in self.machine.issuers:
                raise TraceError(f"{op.loc}: cond_barrier group {group!r} is not an issuer group "
                                 f"of {self.machine.name} ({', '.join(self.machine.issuers)})")
            if group != self.machine.issuers[issuer]:
                return None
            return (BAR, bool(props.get("local", False)), index)
        if name == "sync.barrier":
            return (BAR, bool(props.get("local", False)), index)
        if name == "sync.setprio":
            return (PRIO, int(props.get("priority", 0)), index)
        return (NOP, index)

    def flag_op(self, op: TraceOp, issuer: int) -> tuple:
        """``(runs on the issuer, opcode, agent, flag, violation or None)`` for a flag op."""
        found = len(self.violations)
        flag = self.flag(op, issuer)
        bad = self.violations.pop() if len(self.violations) > found else None
        setting = op.name == "sync.set_flag"
        agent = self.flags[flag].src if setting else self.flags[flag].dst
        if setting and "cross" in op.props:  # a cross-core set runs on the unit it names
            agent = self.place(op.props["src"], issuer, op)
        if agent == issuer:
            return (True, ISET if setting else IWAIT, agent, flag, bad)
        return (False, SET if setting else WAIT, agent, flag, bad)

    def group_op(self, op: TraceOp, issuer: int, index: int) -> tuple:
        """``commit_group`` / ``wait_group`` on a group queue (checked against the model)."""
        queue = int(op.props.get("queue", 0))
        unit = self.machine.async_queues.get(queue)
        if unit is None:
            self.violations.append(("unknown-queue", f"{op.loc}: {op.name} names group queue "
                                    f"{queue}, which {self.machine.name} does not have"))
            return (NOP, index)
        agent = self.instances[(unit, issuer)]
        if op.name == "sync.commit_group":
            return (COMMIT, agent, index, queue)
        pending = int(op.props.get("pending", 0))
        if pending < 0:
            self.violations.append(("wait-group-count", f"{op.loc}: wait_group pending count "
                                    f"{pending} is negative (treated as 0)"))
            pending = 0
        return (WAITG, agent, pending, index, queue)

    def compile(self, trace: Trace) -> Program:
        """Translate every issuer's program of a trace (and note who touches which buffer)."""
        code, bases = [], []
        users: dict[int, set[int]] = {}  # agent -> buffers it accesses
        written: set[int] = set()
        for i, issuer in enumerate(self.machine.issuers):
            ops = trace.programs.get(issuer, [])
            bases.append(len(self.ops))
            self.ops.extend(ops)
            code.append(self.issuer_code(ops, i, bases[-1], users, written))
        program = Program(self.agents, self.inline_units, code, self.ops, self.flags,
                          self.fed(), self.lds_agents(), self.violations,
                          [b.name for b in self.buffers], bases,
                          memory=_memory_of(users, written), machine=self.machine)
        # every WAITG instruction was translated once by _SyncTranslator._learn, which noted its
        # count: the value Program.max_pending would compute by scanning the code
        program.max_pending = self.max_pending
        return program

    def issuer_code(self, ops: list[TraceOp], issuer: int, base: int,
                    users: dict[int, set[int]], written: set[int]) -> list[tuple]:
        """The instructions of one issuer group's ops (the first one numbered ``base``), as
        :meth:`tile` and :meth:`sync` translate them; the buffers each agent accesses are added
        to ``users``, the buffers written to ``written``.

        Compiled twin: ``native/producers.pyx`` ``issuer_code`` (with memory operands)."""
        tiles = _TileTranslator(self, issuer, users, written)
        syncs = _SyncTranslator(self, issuer)
        compiled = native.use(native.producers)
        if self.with_accesses and compiled is not None:
            return compiled.issuer_code(tiles, syncs, ops, base)
        tile, sync = tiles.translate, syncs.translate
        body = []
        append = body.append
        for index, op in enumerate(ops, base):
            if op.name not in SYNC_OPS:
                append(tile(op, index))
            else:
                ins = sync(op, index)
                if ins is not None:
                    append(ins)
        return body

    def fed(self) -> list[list[int]]:
        """Per issuer: the non-inline agents it enqueues to."""
        return [[a.index for a in self.agents if a.kind != "issuer" and a.owner == i]
                for i in range(len(self.machine.issuers))]

    def lds_agents(self) -> list[int | None]:
        """Per issuer: its LDS agent (``None`` without one)."""
        lds = self.machine.lds_unit
        return [self.instances.get((lds, i)) if lds else None
                for i in range(len(self.machine.issuers))]


class _SyncTranslator:
    """:meth:`InstructionCompiler.sync` for the sync ops of one issuer group. A sync op's
    instruction depends on its name, properties and location only (and on the group), so the
    translations of the ops met at each location are kept (the last few) with a copy of their
    properties and the violations they raise, and reused for the next op there with the same
    name and properties (comparing a small dict is cheaper than translating again).

    Each kept entry is ``(name, props, make, violations, template)``: ``make(ref)`` builds the
    instruction with op reference ``ref``; ``template`` (:func:`sync_template`) says the same
    for the compiled loop (``native/producers.pyx``'s ``issuer_code``), which reads ``by_loc`` too."""

    KEPT = 8  # translations kept per location

    def __init__(self, compiler: InstructionCompiler, issuer: int):
        self.compiler, self.issuer = compiler, issuer
        self.by_loc: dict[str, list] = {}  # loc -> [(name, props, make, violations)]

    def translate(self, op: TraceOp, index: int) -> tuple | None:
        """The instruction of one sync op (``None``: this group does not execute it)."""
        name, props = op.name, op.props
        for known in self.by_loc.get(op.loc, ()):
            if known[0] == name and known[1] == props:
                break
        else:
            known = self._learn(op)
        if known[3]:
            self.compiler.violations.extend(known[3])
        return known[2](index) if known[2] is not None else None

    def _learn(self, op: TraceOp) -> tuple:
        """Translate a sync op (with op reference 0), and remember it."""
        violations = self.compiler.violations
        before = len(violations)
        ins = self.compiler.sync(op, self.issuer, 0)
        bad = tuple(violations[before:])
        del violations[before:]
        if ins is not None and ins[0] == WAITG:
            self.compiler.max_pending = max(self.compiler.max_pending, ins[2])
        kept = self.by_loc.setdefault(op.loc, [])
        if len(kept) == self.KEPT:
            kept.pop(0)
        kept.append((op.name, dict(op.props), sync_maker(ins), bad, sync_template(ins)))
        return kept[-1]


def sync_maker(ins: tuple | None):
    """A function putting an op reference into a sync instruction translated with reference 0
    (where each layout keeps it: see ``IssuerWalk._issuer_op_index``); ``None`` for none."""
    if ins is None:
        return None
    code = ins[0]
    if code == ENQ:
        agent, (item, flag, _, accesses) = ins[1], ins[2]
        return lambda ref: (ENQ, agent, (item, flag, ref, accesses))
    at = reference_at(code)
    head, tail = ins[:at], ins[at + 1:]
    if at == 1 and not tail:
        return lambda ref: (code, ref)
    if at == 2 and not tail:
        first = ins[1]
        return lambda ref: (code, first, ref)
    return lambda ref: (*head, ref, *tail)


def sync_template(ins: tuple | None) -> tuple | None:
    """:func:`sync_maker` as data: ``(ins, at)``, the instruction with op reference 0 and the
    position of the reference in it (``-1``: in the enqueued item, ``ins[2][2]``); ``None`` for
    no instruction."""
    if ins is None:
        return None
    code = ins[0]
    if code == ENQ:
        return ins, -1
    return ins, reference_at(code)


class _TileTranslator:
    """:meth:`InstructionCompiler.tile` for the ops of one issuer group, with what does not
    change from op to op looked up once: routes per ``(unit, queue, LDS flag)``, each buffer's
    rank and space, and the group's share of each region written to shared memory. Who
    accesses which buffer is noted on the way (``users``, ``written``: see :class:`MemoryUse`)."""

    def __init__(self, compiler: InstructionCompiler, issuer: int,
                 users: dict[int, set[int]], written: set[int]):
        self.compiler, self.issuer = compiler, issuer
        self.users, self.written = users, written
        self.routes: dict[tuple, tuple[int, int, set[int]]] = {}
        self.ranks = [len(b.shape) for b in compiler.buffers]
        private = compiler.machine.private_spaces
        self.private = [b.space in private for b in compiler.buffers]
        self.shares: dict = {}  # region -> group_share(region, issuer, groups)
        self.copy_offset = virtual_buffer(0, issuer, compiler.virtual_stride)

    def translate(self, op: TraceOp, index: int) -> tuple:
        """The instruction of one tile op."""
        duration = op.duration
        route = self.routes.get((op.unit, op.async_queue, op.lds))
        if route is None or not isinstance(duration, int) or duration < 0:
            route = self._route(op)
        if not self.compiler.with_accesses:
            accesses = ()
        elif self.compiler.groups == 1:
            accesses = self._accesses(op, route[2])
        else:
            accesses = self._group_accesses(op, route[2])
        return (route[0], route[1], (TILE, duration, index, accesses))

    def _route(self, op: TraceOp) -> tuple[int, int, set[int]]:
        """``(kind, target, buffers the running agent accesses)`` (errors as ``route``)."""
        kind, where = self.compiler.route(op, self.issuer)
        agent = self.issuer if kind == INLINE else where
        found = (kind, where, self.users.setdefault(agent, set()))
        self.routes[(op.unit, op.async_queue, op.lds)] = found
        return found

    def _checked(self, op: TraceOp, access: Access) -> None:
        """Raise the error of an operand that does not fit the buffer table."""
        buf = access.buffer
        if not 0 <= buf < len(self.ranks) or self.ranks[buf] != len(access.region):
            raise TraceError(f"{op.loc}: an operand of {op.name} does not fit the buffer table")

    def _accesses(self, op: TraceOp, used: set[int]) -> tuple:
        """Access tuples of a single issuer group (reads, then the written last operand); their
        buffers are added to ``used`` (those of the agent running the op) and ``written``."""
        out = []
        loc, ranks, use = op.loc, self.ranks, used.add
        for a in op.operands:
            if type(a) is Access:
                buf, region = a.buffer, a.region
                if not 0 <= buf < len(ranks) or ranks[buf] != len(region):
                    self._checked(op, a)
                use(buf)
                out.append((buf, region, False, (region, loc)))
        if not out:
            return ()
        name = op.name
        if name == "tile.call":
            self.written.update(access[0] for access in out)
            return tuple((buf, region, True, key) for buf, region, _, key in out)
        buf, region, _, key = out[-1]
        self.written.add(buf)
        if name == "tile.matmul" and op.props.get("accumulate"):
            out.append((buf, region, True, key))
        else:
            out[-1] = (buf, region, True, key)
        return tuple(out)

    def _group_accesses(self, op: TraceOp, used: set[int]) -> tuple:
        """Access tuples of one of several issuer groups (as the compiler's
        ``_group_accesses``: private copies, the group's share of shared-memory writes), noted
        as by :meth:`_accesses`."""
        mems = [a for a in op.operands if type(a) is Access]
        if not mems:
            return ()
        ranks = self.ranks
        for a in mems:
            if not 0 <= a.buffer < len(ranks) or ranks[a.buffer] != len(a.region):
                self._checked(op, a)
        writes = self._writes(op, mems)
        dst = mems[-1]
        narrow = len(mems) > 1 and not self.private[dst.buffer]
        out = []
        loc, private, copy = op.loc, self.private, self.copy_offset
        for access, write in zip(mems, writes, strict=True):
            buf, region = access.buffer, access.region
            if private[buf]:
                buf += copy  # virtual_buffer(buf, issuer, stride)
            elif write or (narrow and access.shape == dst.shape):
                region = self._share(region)
                if region is None:
                    continue
            used.add(buf)
            if write:
                self.written.add(buf)
            out.append((buf, region, write, (region, loc)))
        return tuple(out)

    @staticmethod
    def _writes(op: TraceOp, mems: list) -> list[bool]:
        """Per memref operand: is it written (the accumulated matmul destination is put in
        ``mems`` twice: read, then written)."""
        last = len(mems) - 1
        if op.name == "tile.call":
            return [True] * len(mems)
        if op.name == "tile.matmul" and op.props.get("accumulate"):
            mems.insert(last, mems[last])
            return [False] * (last + 1) + [True]
        return [False] * last + [True]

    def _share(self, region):
        """This group's share of a region written to shared memory (memoized per region)."""
        shares = self.shares
        if region in shares:
            return shares[region]
        share = shares[region] = group_share(region, self.issuer, self.compiler.groups)
        return share


@dataclass(frozen=True)
class MemoryUse:
    """Which agents touch which buffers, known before the run.

    ``accessing``: agents that access memory at all (the only ones race-history pruning must
    wait for); ``race_free``: buffers on which no race is possible (one agent touches them, or
    nobody writes them), which the race detector skips.
    """

    accessing: list[int]
    race_free: frozenset[int]


def memory_use(code: list[list[tuple]], agents: list[Agent]) -> MemoryUse:
    """:class:`MemoryUse` of compiled per-issuer instruction lists."""
    users: dict[int, set[int]] = {}
    written: set[int] = set()
    for i, body in enumerate(code):
        for ins in body:
            if ins[0] == INLINE:
                agent = i
            elif ins[0] == ENQ and ins[2][0] == TILE:
                agent = ins[1]
            else:
                continue
            for buf, _, write, _ in ins[2][3]:
                users.setdefault(buf, set()).add(agent)
                if write:
                    written.add(buf)
    accessing = sorted(set().union(*users.values())) if users else []
    free = {buf for buf, who in users.items() if len(who) == 1 or buf not in written}
    return MemoryUse(accessing, frozenset(free))


def _memory_of(users: dict[int, set[int]], written: set[int]) -> MemoryUse:
    """:class:`MemoryUse` from the buffers each agent accesses and the buffers written."""
    agents_of: dict[int, list[int]] = {}
    for agent, bufs in users.items():
        for buf in bufs:
            agents_of.setdefault(buf, []).append(agent)
    accessing = sorted(agent for agent, bufs in users.items() if bufs)
    free = {buf for buf, who in agents_of.items() if len(who) == 1 or buf not in written}
    return MemoryUse(accessing, frozenset(free))


def virtual_buffer(buf: int, issuer: int, count: int) -> int:
    """The id of issuer group ``issuer``'s private copy of buffer ``buf`` (of ``count``)."""
    return buf + count * (issuer + 1)


def compile_trace(trace: Trace, with_accesses: bool = True) -> Program:
    """Compile a trace for the engine (raises :class:`TraceError` on malformed input).

    ``with_accesses=False`` leaves the memory operands out (timing only: no race check, no
    bound, no pipe hazards); the trace's operands are then not validated either.
    """
    return InstructionCompiler(trace.machine, trace.buffers, with_accesses).compile(trace)
