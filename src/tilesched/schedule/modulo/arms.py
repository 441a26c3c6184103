"""The placement arms and the loop that drives them over the recurrence groups.

Groups go in a deterministic order (largest recurrence first); each tries the arms in order and
the first to seat the whole group wins:

- ``permute``: predecessor-priority order (ASAP, then height), earliest legal seat;
- ``fuse``: the group fused into one rigid footprint (its ASAP, then ALAP layout), probed at
  every shift modulo II; a single op is wound onto its column like a tape instead;
- ``retry``: ``permute`` again with the ops that failed, recorded in a snapshot overlay, first;
  the canonical order is never mutated;
- ``cost``: the look-ahead search of :mod:`.cost_arm`.

When a group defeats every arm, :func:`place_with_arms` restarts with the failed groups first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tilesched.schedule.modulo.cost_arm import arm_cost
from tilesched.schedule.modulo.placer import Placer
from tilesched.schedule.modulo.reservation_table import Footprint, rotate_down

ARMS = ("permute", "fuse", "retry", "cost")


@dataclass
class Overlay:
    """The retry snapshot overlay: ops and groups that failed, in failure order."""

    dead_nodes: dict[int, None] = field(default_factory=dict)
    dead_groups: dict[int, None] = field(default_factory=dict)
    tape: bool = False  # single ops go to the fuse arm first (after a single op failed)


def overlay_order(placer: Placer, gi: int, overlay: Overlay) -> list[int]:
    """The priority order with the overlay's dead ops of this group first (stable)."""
    members = placer.groups[gi].members
    dead = [v for v in overlay.dead_nodes if placer.group_of.get(v) == gi]
    return dead + [v for v in sorted(members, key=placer.priority)
                   if v not in overlay.dead_nodes]


def arm_permute(placer: Placer, gi: int, overlay: Overlay) -> bool:
    """Cheap priority order, earliest legal seat for each op."""
    order = sorted(placer.groups[gi].members, key=placer.priority)
    return all(placer.seat_earliest(v, "permute") for v in order)


def arm_fuse(placer: Placer, gi: int, overlay: Overlay) -> bool:
    """A recurrence as one rigid footprint in its ASAP, then ALAP layout, at every shift.

    A single op is fused with the single ops already on its column instead: it starts where the
    last of them ended (or the next legal start), winding them around the table like a tape,
    which packs contiguous footprints without gaps (McNaughton's wrap-around rule).
    """
    group = placer.groups[gi]
    if not group.bounded:
        return _wind(placer, group.members[0])
    first, cg, ii = group.members[0], placer.cg, placer.ii
    for layout in (placer.asap, [-h for h in placer.height]):
        fused = Footprint(tuple(
            (layout[v] - layout[first] + off, col)
            for v in group.members for off, col in cg.usage[v]))
        t = _first_fused_fit(placer, fused, placer.asap[first], ii)
        if t is not None:
            for v in group.members:
                placer.seat(v, t + layout[v] - layout[first])
            return True
    return False


def _first_fused_fit(placer: Placer, fused: Footprint, target: int, ii: int) -> int | None:
    """The least start in ``[target, target + II)`` where the fused footprint fits."""
    bits = rotate_down(placer.table.start_rows(fused), target, ii)
    return None if not bits else target + (bits & -bits).bit_length() - 1


def _wind(placer: Placer, v: int) -> bool:
    """Seat single op ``v`` at the first legal start from its column's tape head."""
    usage = placer.cg.usage[v]
    col = usage[0][1]
    t = placer.first_fit_from(v, placer.tape.get(col, placer.asap[v]))
    if t is None:
        return False
    placer.seat(v, t)
    placer.tape[col] = t + 1 + max(off for off, c in usage if c == col)
    return True


def arm_retry(placer: Placer, gi: int, overlay: Overlay) -> bool:
    """Rerun the earliest-seat pass with failed ops first, marking each new failure dead."""
    group = placer.groups[gi]
    for _ in range(len(group.members)):
        for v in overlay_order(placer, gi, overlay):
            if not placer.seat_earliest(v, "retry"):
                placer.clear_group(gi)
                if v in overlay.dead_nodes:
                    return False
                overlay.dead_nodes[v] = None
                break
        else:
            return True
    return False


def _arm_cost(placer: Placer, gi: int, overlay: Overlay) -> bool:
    ok = arm_cost(placer, gi, overlay_order(placer, gi, overlay))
    if not ok:
        overlay.dead_nodes.setdefault(placer.cg.ids.index(placer.failure.node), None)
    return ok


_ARM_FUNCTIONS = {"permute": arm_permute, "fuse": arm_fuse, "retry": arm_retry,
                  "cost": _arm_cost}


def group_order(placer: Placer, overlay: Overlay) -> list[int]:
    """Dead groups first; then recurrences (largest first); then single ops, widest first."""
    def key(gi: int) -> tuple:
        group = placer.groups[gi]
        v = group.members[0]
        return (-len(group.members), -len(placer.cg.usage[v]), placer.asap[v], gi)
    rest = sorted((gi for gi in range(len(placer.groups)) if gi not in overlay.dead_groups),
                  key=key)
    return list(overlay.dead_groups) + rest


def place_with_arms(placer: Placer, rounds: int) -> bool:
    """All groups by the arms; on a failed group, restart with it first (``rounds`` times).

    When a single op failed (its column fragmented), the restarts also put the fuse arm first
    for single ops, which winds them onto their columns like a tape.
    """
    overlay = Overlay()
    for _ in range(rounds + 1):
        order = group_order(placer, overlay)
        failed = _place_groups(placer, order, overlay)
        if failed is None:
            return True
        placer.reset()
        if not placer.groups[failed].bounded and not overlay.tape:
            overlay.tape = True
            continue
        if failed in overlay.dead_groups or failed == order[0]:
            return False
        overlay.dead_groups[failed] = None
    return False


def _place_groups(placer: Placer, order: list[int], overlay: Overlay) -> int | None:
    """Place groups in ``order``; return the first group no arm could seat."""
    tape_first = ("fuse", *(arm for arm in ARMS if arm != "fuse"))
    for gi in order:
        single = not placer.groups[gi].bounded
        for arm in tape_first if single and overlay.tape else ARMS:
            if _ARM_FUNCTIONS[arm](placer, gi, overlay):
                for v in placer.groups[gi].members:
                    placer.arm[v] = arm
                break
            placer.clear_group(gi)
        else:
            return gi
    return None
