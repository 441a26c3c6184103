"""Unit instances of the engine: in-order queues, pipelined units, and what they export.

A unit runs its queue in order, one op at a time, from ``max(unit free, op enqueued, what the op
waits for)``; a pipelined unit starts an op one cycle after the previous one started, so its own
ops overlap, and ``set_flag`` / ``pipe_barrier`` drain it. Each executed item bumps the unit's
epoch (its op count), so the epoch of the k-th item is ``k``.

Queues are parallel lists (item, time enqueued, the issuer's clock snapshot) that the unit
consumes from ``head``; consumed prefixes are cut off now and then (``base`` counts them), so a
queue holds what is pending, not the whole run. Issuers that wait for a unit to reach a count
(``barrier_all``, ``wait_group``, ``local`` barriers) read the unit's time and clock when it gets
there: the current ones, or for group commits a *mark* the unit recorded when it passed the count.

Compiled twin: ``native/core.pyx`` runs the unit walk of clean runs (``NativeEngine``).
"""

from __future__ import annotations

from tilesched.sim.engine.happens_before import join, with_epoch
from tilesched.sim.isa import SET, TILE, WAIT

TRIM_AT = 2048  # consumed items that make a queue cut off its prefix


class UnitWalk:
    """Mixin of :class:`~tilesched.sim.engine.engine.Engine`: running unit instances."""

    def _run_unit(self, a: int) -> None:
        """Run a non-pipelined unit's queue until it is empty or waits for a flag not yet set."""
        items = self.items[a]
        n, h = len(items), self.head[a]
        if h >= n:
            return
        avail, ivc = self.avail[a], self.ivc[a]
        clock, vc, seq, busy, last_iv = (self.clock[a], self.vc[a], self.seq[a], self.busy[a],
                                         self.last_iv[a])
        det, rec, synced = self.detector, self.records, self.syncs
        flags = self.flags
        pending, waiter = flags.pending, flags.waiter
        marks = self.marks[a]
        syncs = tiles = wins = 0
        stop = min(n, marks[0] - self.base[a]) if marks else n
        while True:
            while h < stop:
                item = items[h]
                t = avail[h]
                if t < clock:
                    t = clock
                elif t > clock:
                    wins += 1  # the issuer's time decided when the op starts
                iv = ivc[h]
                if iv is not last_iv:
                    vc = join(vc, iv)
                    last_iv = iv
                code = item[0]
                if code == TILE:
                    dur = item[1]
                    seq += 1
                    tiles += 1
                    busy += dur
                    if det is not None and item[3]:
                        det.access(a, vc, seq, item[2], item[3])
                    if rec is not None:
                        rec.append((a, t, t + dur, item[2]))
                    clock = t + dur
                elif code == WAIT:
                    flag = item[1]
                    if not pending[flag]:
                        waiter[flag] = a
                        break
                    set_time, set_vc, _ = pending[flag][0]
                    if synced is not None:
                        synced.append((a, t, max(t, set_time), item[2]))
                    if set_time > t:
                        t = set_time
                    vc = join(vc, set_vc)
                    seq += 1
                    flags.wait(flag, t, seq, item[2])
                    clock = t
                    syncs += 1
                elif code == SET:
                    seq += 1
                    self._set_flag(item[1], t, with_epoch(vc, a, seq), item[2])
                    if synced is not None:
                        synced.append((a, t, t, item[2]))
                    clock = t
                    syncs += 1
                else:
                    seq += 1
                    if synced is not None:
                        synced.append((a, t, t, item[2]))
                    clock = t
                    syncs += 1
                h += 1
            if h < stop or not marks or h != marks[0] - self.base[a]:
                break
            self._reach_mark(a, clock, vc)
            stop = min(n, marks[0] - self.base[a]) if marks else n
        self.head[a], self.clock[a], self.vc[a], self.seq[a] = h, clock, vc, seq
        self.busy[a], self.last_iv[a] = busy, last_iv
        self.avail_wins[a] += wins
        self.sync_ops += syncs
        self.tile_ops += tiles
        self._trim(a)
        if self.watch[a]:
            self._wake_watchers(a)

    def _reach_mark(self, a: int, end: int, vc: tuple) -> None:
        """Record the time and clock of a unit at a group-commit count it just reached."""
        count = self.marks[a].popleft()
        self.marked[a][count] = (end, with_epoch(vc, a, count))

    def _trim(self, a: int) -> None:
        """Cut off a long consumed prefix of the queue."""
        h = self.head[a]
        if h >= TRIM_AT and 2 * h >= len(self.items[a]):
            del self.items[a][:h], self.avail[a][:h], self.ivc[a][:h]
            self.base[a] += h
            self.head[a] = 0

    def _run_pipelined(self, a: int) -> None:
        """Run a pipelined unit: ops start one cycle apart and overlap; set_flag/pipe_barrier drain."""
        st = self.pipe[a]
        items = self.items[a]
        marks = self.marks[a]
        while self.head[a] < len(items):
            h = self.head[a]
            item = items[h]
            t = max(self.avail[a][h], self.clock[a])
            if self.avail[a][h] > self.clock[a]:
                self.avail_wins[a] += 1
            if self.ivc[a][h] is not self.last_iv[a]:
                self.vc[a] = join(self.vc[a], self.ivc[a][h])
                self.last_iv[a] = self.ivc[a][h]
            code = item[0]
            if code == WAIT and not self.flags.ready(item[1]):
                self.flags.waiter[item[1]] = a
                break
            self.seq[a] += 1
            if code == TILE:
                self._pipelined_tile(a, st, item, t)
            else:
                self._pipelined_sync(a, st, item, t)
            self.head[a] = h + 1
            if marks and self.base[a] + h + 1 == marks[0]:
                self._reach_mark(a, st.drain, self.vc[a])
        self._trim(a)
        if self.watch[a]:
            self._wake_watchers(a)

    def _pipelined_tile(self, a: int, st: PipeState, item: tuple, t: int) -> None:
        """Start a tile op on a pipelined unit, checking same-unit hazards since the last drain."""
        end = t + item[1]
        self.tile_ops += 1
        self.busy[a] += max(0, end - max(t, st.covered))
        st.covered = max(st.covered, end)
        st.drain = max(st.drain, end)
        self.clock[a] = t + 1
        for hazard in st.hazards(item[2], item[3]):
            self.findings.add("pipe-hazard", self._hazard_text(a, hazard, item[2]))
        if self.detector is not None and item[3]:
            self.detector.access(a, self.vc[a], self.seq[a], item[2], item[3])
        if self.records is not None:
            self.records.append((a, t, end, item[2]))

    def _pipelined_sync(self, a: int, st: PipeState, item: tuple, t: int) -> None:
        """set_flag / pipe_barrier drain the pipe first; wait_flag only delays later starts."""
        code, begin = item[0], t
        self.sync_ops += 1
        if code == WAIT:
            flag = item[1]
            set_time, set_vc, _ = self.flags.take(flag)
            t = max(t, set_time)
            self.vc[a] = join(self.vc[a], set_vc)
            self.flags.wait(flag, t, self.seq[a], item[2])
        else:
            t = max(t, st.drain)
            st.window.clear()
            if code == SET:
                self._set_flag(item[1], t, with_epoch(self.vc[a], a, self.seq[a]), item[2])
        self.clock[a] = t
        st.drain = max(st.drain, t)
        if self.syncs is not None:
            self.syncs.append((a, begin, t, item[2]))

    def _hazard_text(self, a: int, earlier: int, later: int) -> str:
        """Detail of a ``pipe-hazard`` violation."""
        first, second = self.p.op_of(earlier), self.p.op_of(later)
        return (f"{second.loc}: {second.name} on pipelined unit {self.p.agents[a].name} "
                f"conflicts with {first.name} at {first.loc} with no pipe_barrier between them")

    def _wake_watchers(self, a: int) -> None:
        """Wake issuers waiting for agent ``a`` to reach a count of executed ops."""
        done, keep = self.base[a] + self.head[a], []
        for need, issuer in self.watch[a]:
            if done >= need:
                self.push(issuer)
            else:
                keep.append((need, issuer))
        self.watch[a] = keep

    def _unit_end(self, a: int) -> int:
        """When the last op the unit executed is done (pipelined units: drained)."""
        st = self.pipe.get(a)
        return self.clock[a] if st is None else st.drain


class PipeState:
    """Bookkeeping of one pipelined unit: covered time, drain time, accesses since the last drain."""

    def __init__(self) -> None:
        self.covered = 0
        self.drain = 0
        self.window: dict[int, list[tuple]] = {}

    def hazards(self, op: int, accesses) -> list[int]:
        """Earlier ops since the last drain whose accesses conflict with these (then record them)."""
        found = []
        for buf, region, write, _ in accesses:
            for region2, write2, op2 in self.window.get(buf, ()):
                if op2 != op and (write or write2) and _overlap(region, region2):
                    found.append(op2)
        for buf, region, write, _ in accesses:
            self.window.setdefault(buf, []).append((region, write, op))
        return list(dict.fromkeys(found))


def _overlap(a, b) -> bool:
    """True when two regions share an element."""
    return all(alo < bhi and blo < ahi for (alo, ahi), (blo, bhi) in zip(a, b, strict=True))
