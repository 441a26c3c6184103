"""The instruction producers as they were before they were optimized (issue 14), kept as the
oracle the optimized ones are compared against (``test_sim_producers.py``).

``ReferenceCompiler`` / :func:`reference_compile_trace` / :func:`reference_memory_use` are
``program.py``'s ``InstructionCompiler`` / ``compile_trace`` / ``memory_use``, and
:class:`ReferenceStream` is ``stream.py``'s chunk compiler, as of commit a7ac7a3, unchanged but for
their names. Do not optimize this file: its worth is that it is the straightforward version.
"""

from __future__ import annotations

import functools  # noqa: F401 - kept as in the original module
from typing import NamedTuple

from tilesched.diagnostics import TileschedError
from tilesched.sim.code.program import Agent, Flag, MemoryUse, Program, virtual_buffer
from tilesched.sim.code.stream import _StaticMemoryUse, _SyncOp
from tilesched.sim.isa import (
    BALL,
    BAR,
    COMMIT,
    ENQ,
    INLINE,
    ISET,
    IWAIT,
    MARK,
    MAX_STATIC,
    NOP,
    PIPE_BARRIER,
    PRIO,
    SET,
    TILE,
    VIRTUAL_STRIDE,
    WAIT,
    WAITG,
)
from tilesched.sim.lowering.lower import Lowering, StaticOp, find_function
from tilesched.sim.trace import (
    SYNC_OPS,
    Access,
    MachineModel,
    Trace,
    TraceError,
    TraceOp,
    group_share,
)

CACHE_LIMIT = 1 << 14


class _Mem(NamedTuple):
    buffer: int
    region: tuple
    shape: tuple


class ReferenceCompiler:
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
        self.groups = len(self.machine.issuers)
        self.virtual_stride = len(buffers)  # see virtual_buffer
        self.routes: dict[tuple, tuple[int, int]] = {}  # (unit, queue, lds, issuer) -> route
        self._private: dict[int, bool] = {}  # buffer -> in a private (per-group) space
        self._make_agents()

    def _make_agents(self) -> None:
        """Issuers first, then one instance per (non-inline unit, issuer group) as documented."""
        issuers = self.machine.issuers
        for i, name in enumerate(issuers):
            self.agents.append(Agent(i, name, "issuer", name, i))
        for unit, spec in self.machine.units.items():
            if spec.kind == "inline":
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
        return self.instances[(name, issuer)]

    def flag(self, op: TraceOp, issuer: int) -> int:
        """Intern the flag an op names, checking its event id against the limit."""
        try:
            src, dst, event = op.props["src"], op.props["dst"], int(op.props["event"])
        except KeyError as missing:
            raise TraceError(f"{op.loc}: {op.name} needs property {missing}") from None
        limit = self.machine.event_limit
        if event < 0 or (limit is not None and event >= limit):
            self.violations.append(("event-id-out-of-range",
                                    f"{op.loc}: {op.name} {src}->{dst} uses event id {event}, "
                                    f"but the target has {limit} per unit pair"))
        key = (issuer, src, dst, event)
        if key not in self.flag_ids:
            self.flag_ids[key] = len(self.flags)
            self.flags.append(Flag(self.place(src, issuer, op), self.place(dst, issuer, op),
                                   f"{src}->{dst}", event))
        return self.flag_ids[key]

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
        """Translate every issuer's program of a trace."""
        code, bases = [], []
        for i, issuer in enumerate(self.machine.issuers):
            body = []
            ops = trace.programs.get(issuer, [])
            base = len(self.ops)
            bases.append(base)
            self.ops.extend(ops)
            for index, op in enumerate(ops, base):
                ins = self.sync(op, i, index) if op.name in SYNC_OPS else self.tile(op, i, index)
                if ins is not None:
                    body.append(ins)
            code.append(body)
        return Program(self.agents, self.inline_units, code, self.ops, self.flags,
                       self.fed(), self.lds_agents(), self.violations,
                       [b.name for b in self.buffers], bases,
                       memory=reference_memory_use(code, self.agents), machine=self.machine)

    def fed(self) -> list[list[int]]:
        """Per issuer: the non-inline agents it enqueues to."""
        return [[a.index for a in self.agents if a.kind != "issuer" and a.owner == i]
                for i in range(len(self.machine.issuers))]

    def lds_agents(self) -> list[int | None]:
        """Per issuer: its LDS agent (``None`` without one)."""
        lds = self.machine.lds_unit
        return [self.instances.get((lds, i)) if lds else None
                for i in range(len(self.machine.issuers))]



def reference_memory_use(code: list[list[tuple]], agents: list[Agent]) -> MemoryUse:
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



def reference_compile_trace(trace: Trace, with_accesses: bool = True) -> Program:
    """Compile a trace for the engine (raises :class:`TraceError` on malformed input).

    ``with_accesses=False`` leaves the memory operands out (timing only: no race check, no
    bound, no pipe hazards); the trace's operands are then not validated either.
    """
    return ReferenceCompiler(trace.machine, trace.buffers, with_accesses).compile(trace)


class ReferenceStream:
    """``StreamedProgram``'s chunk compiler over a lowering that lowers every iteration (no
    replay): :meth:`compile` is the original ``StreamedProgram.compile``."""

    def __init__(self, module, target, args=None, with_accesses: bool = True):
        fn = find_function(module, None)
        lowering = Lowering(target, args or {}, True)
        lowering.function(fn)
        self.lowering = lowering
        self.compiler = ReferenceCompiler(lowering.machine, lowering.buffers, with_accesses)
        self.compiler.virtual_stride = VIRTUAL_STRIDE
        self.with_accesses = with_accesses
        self.issuers = len(lowering.machine.issuers)
        self.cache = [{} for _ in range(self.issuers)]
        self.makers = [{} for _ in range(self.issuers)]
        self.routes = [{} for _ in range(self.issuers)]
        self.use = _StaticMemoryUse(lowering, fn, self.compiler)

    def _count(self, chunk) -> None:
        """(The original counts ops and fused spans here; nothing to compare.)"""

    def compile(self, issuer: int, chunk) -> list[tuple]:
        """The instructions of one lowered chunk for one issuer group.

        What an op compiles to depends on its static op and operands, not on where it runs, so
        each ``(sid, operands)`` is translated once (:meth:`_tile_parts`, :meth:`_sync_maker`)
        and later executions only put their op reference in."""
        self.use.classify_new_buffers()
        if issuer == 0:
            self._count(chunk)
        code = []
        append = code.append
        stride = self.issuers * MAX_STATIC
        ref = (chunk.base * self.issuers + issuer) * MAX_STATIC
        tiles, makers = self.cache[issuer], self.makers[issuer]
        violations = self.compiler.violations
        for sid, operands in chunk.ops:
            if operands or sid not in makers:
                parts = tiles.get((sid, operands))
                if parts is None:
                    parts = self._compile_op(issuer, sid, operands)
                if parts[0] is None:  # a sync op with a run-time operand
                    made = parts[1](ref + sid)
                    if parts[2]:
                        violations.extend(parts[2])
                    if made is not None:
                        append(made)
                else:
                    append((parts[0], parts[1], (TILE, parts[2], ref + sid, parts[3])))
            else:
                make, bad = makers[sid]
                if bad:
                    violations.extend(bad)
                if make is not None:
                    append(make(ref + sid))
            ref += stride
        if chunk.mark is not None:
            kind, frame, n = chunk.mark
            append((MARK, kind, frame.loop, n, frame))
        return code

    def _compile_op(self, issuer: int, sid: int, operands: tuple):
        """Translate ``(sid, operands)`` once: ``(route kind, route target, duration, accesses)``
        of a tile op, or ``(None, make, violations)`` of a sync op with operands; a sync op
        without operands goes to ``makers`` instead (then the cache entry is never read)."""
        if sid >= MAX_STATIC:
            raise TileschedError(f"the program has more than {MAX_STATIC} ops")
        info = self.lowering.statics[sid]
        cache = self.cache[issuer]
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        if info.is_sync:
            found = len(self.compiler.violations)
            ins = self._sync(info, operands, issuer, 0)
            bad = tuple(self.compiler.violations[found:])
            del self.compiler.violations[found:]
            make = _sync_maker(ins)
            if not operands:
                self.makers[issuer][sid] = (make, bad)
            parts = cache[(sid, operands)] = (None, make, bad)
            return parts
        route = self.routes[issuer].get(sid)
        if route is None:
            route = self.routes[issuer][sid] = self.compiler.route(info, issuer)
        accesses = self._accesses(info, operands, issuer) if self.with_accesses else ()
        parts = cache[(sid, operands)] = (route[0], route[1], info.duration, accesses)
        return parts

    def _accesses(self, info: StaticOp, operands: tuple, issuer: int) -> tuple:
        mems = [_Mem(o[0], o[1], shape) for o, shape in zip(operands, info.shapes, strict=True)
                if shape is not None]
        if not mems:
            return ()
        found = self.compiler.accesses_of(info.name, bool(info.props.get("accumulate")), mems,
                                          info.loc, issuer)
        dropped = self.use.dropped
        return tuple(a for a in found if a[0] not in dropped)

    def _sync(self, info: StaticOp, operands: tuple, issuer: int, ref: int) -> tuple | None:
        props = info.props if not operands else {**info.props, "pending": operands[0]}
        return self.compiler.sync(_SyncOp(info.name, props, info.loc), issuer, ref)



def _sync_maker(ins: tuple | None):
    """A function putting an op reference into a sync instruction compiled with reference 0
    (where each layout keeps it: see ``IssuerWalk._issuer_op_index``); ``None`` for none."""
    if ins is None:
        return None
    code = ins[0]
    if code == ENQ:
        agent, head, tail = ins[1], ins[2][:2], ins[2][3:]
        return lambda ref: (ENQ, agent, (*head, ref, *tail))
    at = 3 if code == WAITG else 1 if code in (NOP, BALL) else 2
    head, tail = ins[:at], ins[at + 1:]
    return lambda ref: (*head, ref, *tail)


