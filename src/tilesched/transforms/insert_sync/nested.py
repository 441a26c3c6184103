"""Flags across nested regions (insert-sync, flag targets): a block's items with its nested
loops and conditionals as entry and exit points per unit.

A region op that uses several units is planned inside on its own; in the block around it,
it becomes one *entry* item per unit it uses (before it: what the region's ops on that unit
need from earlier code is waited for there) and one *exit* item per unit (after it: later
code that needs the region's ops on that unit waits for a flag set there). Happens-before
inside the region is not assumed outside it: an exit item knows what its unit knew at the
entry, which is less than the truth, so nothing implied is assumed that does not hold.

Dependences come unreduced (``block_dependences``): a path through a region op does not
order its endpoints at the unit level. A dependence of an op on a region (or of a region on
an op) applies to the units whose ops inside the region access a buffer the op accesses, with
a write on one side (whatever the offsets or iteration: conservative); anything else
(unknown effects) applies to every unit of the region.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from xdsl.dialects import func, scf
from xdsl.ir import Operation

from tilesched.analysis.effects import effects_of
from tilesched.analysis.units import unit_kind
from tilesched.schedule.flags import Item
from tilesched.target.model import Target


@dataclass
class Footprint:
    """Root buffers an op (or one unit's ops inside a region) reads and writes."""

    reads: set = field(default_factory=set)
    writes: set = field(default_factory=set)
    unknown: bool = False

    def add(self, op: Operation) -> None:
        effects = effects_of(op)
        self.unknown = self.unknown or effects.unknown
        for access in effects.accesses:
            (self.writes if access.write else self.reads).add(id(access.region.root))

    def conflicts(self, other: Footprint) -> bool:
        if self.unknown or other.unknown:
            return True
        return bool(self.writes & (other.reads | other.writes) or other.writes & self.reads)


def region_footprints(op: Operation, target: Target) -> dict[str, Footprint] | None:
    """Per queued unit, the footprint of ``op``'s nested tile ops on it; None when some
    nested op runs inline on the issuer or has unknown effects (then the region keeps the
    ``barrier_all`` boundary). A ``func.call`` has unknown effects; an ``scf.while`` runs its
    regions an unknown number of rounds, which the entry / exit plan does not model; so does a
    region that contains either."""
    if isinstance(op, func.CallOp | scf.WhileOp):
        return None
    found: dict[str, Footprint] = defaultdict(Footprint)
    for inner in op.walk():
        if isinstance(inner, func.CallOp | scf.WhileOp):  # nested in a loop or an if, too
            return None
        if inner is op or inner.regions or inner.name.startswith("sync."):
            continue
        unit, kind = unit_kind(inner, target)
        if kind == "inline":
            return None
        if unit is None:
            continue
        found[unit].add(inner)
        if found[unit].unknown:
            return None
    return dict(found)


@dataclass
class Expanded:
    """A block's items with regions expanded: ``items`` in order, ``anchor[k]`` the op
    before which syncs at position ``k`` go (None: the end of the block), ``entry`` /
    ``exit`` the items of each region group per unit, ``item_of`` a plain group's item."""

    items: list[Item]
    anchor: list[Operation | None]
    entry: dict[int, dict[str, int]]
    exit: dict[int, dict[str, int]]
    item_of: dict[int, int]
    footprint: dict[int, Footprint | dict[str, Footprint]]

    def map(self, src: int, dst: int) -> list[tuple[int, int]]:
        """Item pairs of a dependence of group ``dst`` on group ``src``."""
        return [(i, j) for i, j in self._sides(src, dst)]

    def _sides(self, src: int, dst: int):
        src_fp, dst_fp = self.footprint[src], self.footprint[dst]
        if src in self.item_of:
            sources = [(self.item_of[src], src_fp)]
        else:
            sources = [(self.exit[src][u], fp) for u, fp in src_fp.items()]
        if dst in self.item_of:
            targets = [(self.item_of[dst], dst_fp)]
        else:
            targets = [(self.entry[dst][u], fp) for u, fp in dst_fp.items()]
        pairs = [(i, j) for i, a in sources for j, b in targets if a.conflicts(b)]
        if not pairs:  # the dependence exists, but not through buffers: all units
            pairs = [(i, j) for i, _ in sources for j, _ in targets]
        return pairs


def expand(groups: list[list[int]], ops: list[Operation], regions: dict[int, dict[str, Footprint]],
           item_of_op, terminator: Operation | None) -> Expanded:
    """Items of ``groups`` (lists of op indices; a region group is one region op, with its
    per-unit footprints in ``regions[group]``)."""
    items: list[Item] = []
    anchor: list[Operation | None] = []
    entry: dict[int, dict[str, int]] = {}
    exit_: dict[int, dict[str, int]] = {}
    item_of: dict[int, int] = {}
    footprint: dict[int, Footprint | dict[str, Footprint]] = {}
    for g, members in enumerate(groups):
        op = ops[members[0]]
        if g in regions:
            units = sorted(regions[g])
            footprint[g] = regions[g]
            entry[g], exit_[g] = {}, {}
            for unit in units:
                entry[g][unit] = len(items)
                items.append(Item(unit))
                anchor.append(op)
            for unit in units:
                exit_[g][unit] = len(items)
                items.append(Item(unit))
                anchor.append(None)  # filled below: the next anchor after the region
        else:
            fp = Footprint()
            for k in members:
                fp.add(ops[k])
            footprint[g] = fp
            item_of[g] = len(items)
            items.append(item_of_op(op))
            anchor.append(op)
    following = terminator
    for k in range(len(anchor) - 1, -1, -1):
        if anchor[k] is None:
            anchor[k] = following
        else:
            following = anchor[k]
    return Expanded(items, anchor, entry, exit_, item_of, footprint)
