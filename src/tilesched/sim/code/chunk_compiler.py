"""Lowered chunks -> instruction lists, for one issuer group of a streamed program.

``stream.py`` hands every chunk of the lowering (``(sid, operands)`` pairs) to one
:class:`GroupCompiler` per issuer group. What an op compiles to depends on its static op and
operands, never on where it runs, so the work is split by what varies:

- per static op (``sid``), once: the route, duration and an :class:`AccessPlan` of a tile op
  (which operands become which access tuples); the instruction maker of a sync op (sync ops with a
  run-time operand, a ``wait_group`` count, are translated once per distinct operand);
- per lowered pair object: its item parts are kept, so a pair the lowering hands over again (a
  replayed iteration reuses the pairs whose operands did not move, ``replay.py``) costs one
  dictionary look-up;
- per execution: the op reference and the instruction tuples around it.

The instructions are exactly those of :class:`~tilesched.sim.code.program.InstructionCompiler`
(``accesses_of`` and ``sync``) with the accesses of dropped buffers left out (``stream.py``).
"""

from __future__ import annotations

from collections import deque

from tilesched.diagnostics import TileschedError
from tilesched.sim import native
from tilesched.sim.code.program import sync_maker, virtual_buffer
from tilesched.sim.isa import ITER, MARK, MAX_PERIOD, MAX_STATIC, TILE
from tilesched.sim.trace import group_share

SEEN_LIMIT = 1 << 14  # pairs (and shares, sync operands) whose translation is kept per group


class GroupCompiler:
    """Compiles the lowering's chunks for issuer group ``issuer`` of a streamed program."""

    def __init__(self, program, issuer: int):
        self.program, self.issuer = program, issuer
        self.compiler = program.compiler
        self.statics = program.lowering.statics
        self.syncs: dict[tuple, tuple] = {}  # (sid, operands) -> (make, violations)
        self.tiles: dict[int, tuple] = {}  # sid -> (kind, target, duration, AccessPlan)
        self.seen: dict[int, tuple] = {}  # id(pair) -> what it compiles to (see _learn)
        self.private: dict[int, bool] = {}  # buffer -> in a private (per-group) space
        self.shares: dict = {}  # region -> this group's share of it
        compiled = native.use(native.producers)
        self.native = compiled.chunk_code if compiled is not None else None
        self.recent = None  # (mark, instructions, violations) of the latest iterations

    def keep_recent(self) -> None:
        """Keep the instructions of the latest loop iterations (chunks ending at an ``ITER``
        mark), which replayed runs of iterations (``replay.Repeat``) are made from."""
        self.recent = deque(maxlen=MAX_PERIOD)

    def code(self, chunk, stride: int) -> list[tuple]:
        """The instructions of one chunk (op references ``stride`` apart), ending with the
        ``MARK`` of the loop boundary that ends it."""
        ref = (chunk.base * self.program.issuers + self.issuer) * MAX_STATIC
        if chunk.repeat is not None:
            return self._repeated(chunk, stride)
        recent, violations = self.recent, self.compiler.violations
        before = len(violations)
        if self.native is not None:
            code = self.native(self, chunk, ref, stride)
        else:
            code = self._code(chunk, ref, stride)
        if recent is not None and chunk.mark is not None and chunk.mark[0] == ITER:
            recent.append((chunk.mark, code, tuple(violations[before:])))
        return code

    def _repeated(self, chunk, stride: int) -> list[tuple]:
        """The instructions of a chunk of replayed iterations (``replay.Repeat``): each
        iteration's made from those of the iteration a period earlier, ending with the ``MARK``
        of the next iteration (the last one with the chunk's own). Violations found compiling
        the period before are found again in each period (its sync ops do not move)."""
        repeat = chunk.repeat
        frame, period, first = repeat.frame, repeat.period, repeat.first
        recent = list(self.recent)[-period:] if self.recent else []
        if chunk.ops or [mark for mark, _, _ in recent] != \
                [(ITER, frame, m + 1) for m in range(first - period, first)]:
            raise RuntimeError("replayed iterations without the period before them")
        code, last = native.repeat.repeated_code(
            [code for _, code, _ in recent], repeat.count, repeat.ops * stride, repeat.steps,
            self.program.virtual_stride, (MARK, ITER, frame.loop), frame, first)
        kind, _, n = chunk.mark
        code[-1] = (MARK, kind, frame.loop, n, frame)
        found = [bad for _, _, found in recent for bad in found]
        if found:
            self.compiler.violations.extend(found * (repeat.count // period))
        end = first + repeat.count
        self.recent.extend(((ITER, frame, end - period + k + 1), ins, recent[k][2])
                           for k, ins in enumerate(last))
        return code

    def _code(self, chunk, ref: int, stride: int) -> list[tuple]:
        """:meth:`code` of a chunk of lowered ops, in Python.

        Compiled twin: ``native/producers.pyx`` ``chunk_code`` (and ``native/repeat.pyx``
        ``repeated_code`` for whole periods of replayed iterations)."""
        code: list[tuple] = []
        append = code.append
        seen = self.seen
        violations = self.compiler.violations
        for pair in chunk.ops:
            known = seen.get(id(pair))
            if known is None or known[0] is not pair:
                known = self._learn(pair)
            if known[1] is None:  # a sync op: (pair, None, make, violations)
                if known[3]:
                    violations.extend(known[3])
                if known[2] is not None:
                    append(known[2](ref + pair[0]))
            else:  # a tile op: (pair, kind, target, duration, accesses)
                append((known[1], known[2], (TILE, known[3], ref + pair[0], known[4])))
            ref += stride
        if chunk.mark is not None:
            kind, frame, n = chunk.mark
            append((MARK, kind, frame.loop, n, frame))
        return code

    def _learn(self, pair: tuple) -> tuple:
        """What a pair met for the first time compiles to, kept by the pair's identity (up to
        ``SEEN_LIMIT`` pairs): ``(pair, kind, target, duration, accesses)`` of a tile op,
        ``(pair, None, make, violations)`` of a sync op (translated once per static op, or
        once per distinct operands when it has a run-time operand)."""
        sid, operands = pair
        tile = self.tiles.get(sid)
        if tile is None:
            if sid >= MAX_STATIC:
                raise TileschedError(f"the program has more than {MAX_STATIC} ops")
            info = self.statics[sid]
            if info.is_sync:
                known = (pair, None, *self._sync(info, operands))
                return self._keep(pair, known)
            tile = self.tiles[sid] = self._tile(info)
        known = (pair, tile[0], tile[1], tile[2], tile[3].accesses(operands))
        return self._keep(pair, known)

    def _keep(self, pair: tuple, known: tuple) -> tuple:
        """Remember what ``pair`` compiles to (forgetting everything at ``SEEN_LIMIT``)."""
        seen = self.seen
        if len(seen) >= SEEN_LIMIT:
            seen.clear()
        seen[id(pair)] = known
        return known

    def _tile(self, info) -> tuple:
        """``(kind, target, duration, AccessPlan)`` of a static tile op."""
        kind, where = self.compiler.route(info, self.issuer)
        return (kind, where, info.duration, AccessPlan(info, self))

    def _sync(self, info, operands: tuple) -> tuple:
        """``(make, violations)`` of a sync op (with operands: once per operands)."""
        key = (info.sid, operands)
        found = self.syncs.get(key)
        if found is None:
            compiler = self.compiler
            before = len(compiler.violations)
            ins = self.program.sync_instruction(info, operands, self.issuer)
            bad = tuple(compiler.violations[before:])
            del compiler.violations[before:]
            if len(self.syncs) >= SEEN_LIMIT:  # run-time operands: memory stays bounded
                self.syncs.clear()
            found = self.syncs[key] = (sync_maker(ins), bad)
        return found

    def is_private(self, buf: int) -> bool:
        """Is a buffer in a space every issuer group has its own copy of?"""
        found = self.private.get(buf)
        if found is None:
            space = self.compiler.buffers[buf].space
            found = self.private[buf] = space in self.compiler.machine.private_spaces
        return found

    def share(self, region):
        """This group's share of a region written to shared memory (memoized per region)."""
        shares = self.shares
        if region in shares:
            return shares[region]
        if len(shares) >= SEEN_LIMIT:  # regions that move with the iteration: memory stays bounded
            shares.clear()
        found = shares[region] = group_share(region, self.issuer, self.compiler.groups)
        return found


class AccessPlan:
    """Which memref operands of one static tile op become which access tuples in one issuer
    group (:meth:`InstructionCompiler.accesses_of`), decided once; :meth:`accesses` applies it
    to the operands of one execution, leaving out buffers no race can involve."""

    def __init__(self, info, group: GroupCompiler):
        self.group = group
        self.loc, self.shapes = info.loc, info.shapes
        self.dropped = group.program.use.dropped
        self.enabled = group.program.with_accesses
        mems = [k for k, shape in enumerate(info.shapes) if shape is not None]
        if not mems:
            self.pairs = ()
        elif info.name == "tile.call":
            self.pairs = tuple((k, True) for k in mems)
        else:
            self.pairs = tuple((k, False) for k in mems[:-1])
            if info.name == "tile.matmul" and info.props.get("accumulate"):
                self.pairs += ((mems[-1], False),)
            self.pairs += ((mems[-1], True),)
        self.copy_offset = virtual_buffer(0, group.issuer, group.compiler.virtual_stride)
        self.accesses = self._single if group.compiler.groups == 1 else self._grouped
        if not self.pairs or not self.enabled:
            self.accesses = _no_accesses

    def _single(self, operands: tuple) -> tuple:
        """The access tuples of one execution in a single-group machine."""
        loc, dropped = self.loc, self.dropped
        out = []
        for k, write in self.pairs:
            buf, region = operands[k]
            if buf not in dropped:
                out.append((buf, region, write, (region, loc)))
        return tuple(out)

    def _grouped(self, operands: tuple) -> tuple:
        """The access tuples of one execution in one of several issuer groups: private
        buffers become the group's copy, shared ones written (and the inputs of the
        destination's shape) the group's share (``InstructionCompiler._group_accesses``)."""
        group, pairs, shapes = self.group, self.pairs, self.shapes
        private = group.private
        last = pairs[-1][0]
        narrow = pairs[-1][1] and len(pairs) > 1 and not group.is_private(operands[last][0])
        loc, dropped = self.loc, self.dropped
        out = []
        for k, write in pairs:
            buf, region = operands[k]
            if private.get(buf) or group.is_private(buf):
                buf += self.copy_offset
            elif write or (narrow and shapes[k] == shapes[last]):
                region = group.share(region)
                if region is None:
                    continue
            if buf not in dropped:
                out.append((buf, region, write, (region, loc)))
        return tuple(out)


def _no_accesses(operands: tuple) -> tuple:
    """The access tuples of an op without memref operands (or of a run without accesses)."""
    return ()
