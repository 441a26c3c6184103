"""Happens-before race detection over vector clocks (DESIGN.md §4, "Races").

Agents are the simulator's issuers and unit instances (program order on one agent orders its
ops; the engine adds the cross-agent edges: issue order, flag set -> wait, group completion ->
``wait_group``, barrier rendezvous and ``local`` barriers for LDS). Every agent ``a`` numbers the
ops it executes ``1, 2, ...`` (its *epoch*); a vector clock ``vc`` maps each agent to the last epoch
of it that happens-before the current point, so an access of agent ``b`` at epoch ``e``
happens-before the current access exactly when ``e <= vc[b]``.

The detector is FastTrack-style [Flanagan & Freund, PLDI 2009], generalised from single memory
locations to rectangular regions of root buffers: per buffer and agent it keeps the recent read and
write accesses in epoch order, keyed by ``(region, source location)`` so that an unrolled loop that
keeps touching the same slot leaves one entry per slot, not one per iteration. A new access scans
each other agent's entries from the newest backwards and stops at the first one ordered before it
(all older ones are ordered too), so properly synchronized programs cost O(1) per access. Entries
ordered before every agent that may still access memory are pruned periodically.

The engine must feed accesses in a linear extension of happens-before (it does: an op is processed
only after everything it depends on); which linear extension must not matter, and does not:

- An access's *class* is ``(agent, history key, is_write)``: what the history keeps one entry for.
  A racing pair of classes is found whatever the processing order: of two unordered conflicting
  accesses, the one processed later finds the other's class in the history (the newest access of
  that class processed before it is unordered with it too: it is no older, and not after it).
- A race is reported once per (buffer, pair of source locations). Its ``count`` is the number of
  distinct racing *pairs of classes* (regions and units), and its two sides are the smallest
  description over those pairs (``first``: the side earlier in the source). Both are functions
  of the set of racing class pairs, not of which access happened to be processed last, so ``sim``
  and ``sim --full`` (or any other processing order) report the same races.

Compiled twin: ``native/core.pyx`` runs race detection (its histories are ``Table`` in ``native/core_state.h``, which only detects: the first race hands the run back to this module) of clean runs (``NativeEngine``).
"""

from __future__ import annotations

from tilesched.sim.result import Race, RaceSide

PRUNE_EVERY = 1 << 16


def join(a: tuple[int, ...], b: tuple[int, ...] | None) -> tuple[int, ...]:
    """Component-wise maximum of two vector clocks (``b`` may be ``None``)."""
    if b is None or a is b:
        return a
    return tuple(map(max, a, b))


def with_epoch(vc: tuple[int, ...], agent: int, epoch: int) -> tuple[int, ...]:
    """``vc`` with the agent's own component set to its current epoch (what it exports)."""
    return vc[:agent] + (epoch,) + vc[agent + 1:]


class RaceDetector:
    """Access histories per (buffer, agent) and the races found so far.

    ``describe(op_index, agent) -> RaceSide`` and ``buffer_name(buffer_id)`` turn raw indices into
    report text; ``skip`` holds buffers only one agent ever touches (nothing to check or
    remember); ``live_views()`` returns, for each agent ``b``, the smallest ``vc[b]`` over all
    other agents that may still access memory (used for pruning), or ``None`` to skip pruning.
    """

    def __init__(self, describe, buffer_name, live_views=None, skip=frozenset()):
        self.describe = describe
        self.skip = skip
        self.buffer_name = buffer_name
        self.live_views = live_views
        # buffer -> {agent: [newest write epoch, writes, newest read epoch, reads]}
        self.history: dict[int, dict[int, list]] = {}
        self.found: dict[tuple, list] = {}  # (buffer, loc, loc) -> [count, Race]
        self.classes: dict[tuple, tuple] = {}  # racing class pair -> (race key, op, op)
        self.entries = 0
        self.next_prune = PRUNE_EVERY

    def access(self, agent: int, vc: tuple[int, ...], epoch: int, op: int, accesses) -> None:
        """Check and record the accesses ``(buffer, region, is_write, key)`` of one op."""
        history, skip = self.history, self.skip
        for buf, region, write, key in accesses:
            if buf in skip:
                continue
            per = history.get(buf)
            if per is None:
                per = history[buf] = {}
            mine = None
            for other, h in per.items():
                if other == agent:
                    mine = h
                    continue
                limit = vc[other]
                if h[0] > limit:
                    self._scan(h[1], limit, region, buf, other, True, (agent, key, write), op)
                if write and h[2] > limit:
                    self._scan(h[3], limit, region, buf, other, False, (agent, key, write), op)
            if mine is None:
                mine = per[agent] = [0, {}, 0, {}]
            if write:
                mine[0] = epoch
                table = mine[1]
            else:
                mine[2] = epoch
                table = mine[3]
            if table.pop(key, None) is None:
                self.entries += 1
            table[key] = (epoch, op)
        if self.entries >= self.next_prune:
            self.prune()

    def _scan(self, table: dict, limit: int, region, buf: int, other: int, other_write: bool,
              mine: tuple, op: int):
        """Report overlaps with ``other``'s entries newer than ``limit`` (newest first)."""
        for key2, (epoch2, op2) in reversed(table.items()):
            if epoch2 <= limit:
                return
            for (alo, ahi), (blo, bhi) in zip(region, key2[0], strict=True):
                if alo >= bhi or blo >= ahi:
                    break
            else:
                theirs = (other, key2, other_write)
                pair = (buf, mine, theirs) if mine < theirs else (buf, theirs, mine)
                if pair not in self.classes:
                    if mine < theirs:
                        self._report(pair, op, op2)
                    else:
                        self._report(pair, op2, op)

    def _report(self, pair: tuple, op1: int, op2: int) -> None:
        """Record a new racing pair of classes under its (buffer, pair of source locations)."""
        buf, (agent1, _, _), (agent2, _, _) = pair
        side1, side2 = self.describe(op1, agent1), self.describe(op2, agent2)
        if _side_order(side2) < _side_order(side1):
            side1, side2 = side2, side1
        key = (buf,) + tuple(sorted((side1.loc, side2.loc)))
        self.classes[pair] = (key, op1, op2)
        entry = self.found.get(key)
        if entry is None:
            self.found[key] = [1, Race(self.buffer_name(buf), side1, side2)]
            return
        entry[0] += 1
        race = entry[1]
        if (_side_order(side1), _side_order(side2)) < (_side_order(race.first),
                                                      _side_order(race.second)):
            race.first, race.second = side1, side2

    def prune(self) -> None:
        """Drop entries ordered before every agent that may still access memory."""
        views = self.live_views() if self.live_views else None
        if views is None:
            self.next_prune = self.entries + PRUNE_EVERY
            return
        self.entries = 0
        for per in self.history.values():
            for agent, h in per.items():
                floor = views[agent]
                if floor <= 0:
                    continue
                for slot in (1, 3):
                    table = h[slot]
                    kept = {k: v for k, v in table.items() if v[0] > floor}
                    h[slot] = kept
                    self.entries += len(kept)
        self.next_prune = self.entries + PRUNE_EVERY

    def races(self) -> list[Race]:
        """Races found, one per (buffer, source-location pair), in a canonical order."""
        out = []
        for key in sorted(self.found, key=lambda k: (self.buffer_name(k[0]), _loc_order(k[1]),
                                                     _loc_order(k[2]))):
            count, race = self.found[key]
            race.count = count
            out.append(race)
        return out


def _loc_order(loc: str) -> tuple:
    """Sort key of a ``file:line:col`` location: file, then line and column as numbers."""
    parts = loc.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return (parts[0], int(parts[1]), int(parts[2]))
    return (loc, -1, -1)


def _side_order(side: RaceSide) -> tuple:
    """Sort key of a race side: earlier in the source first, then op name and unit."""
    return (_loc_order(side.loc), side.op, side.unit)
