"""Proofs that a candidate II is infeasible for one recurrence group: propagated windows.

Fix a member ``h`` of a recurrence group at time 0 (rotating a schedule keeps it valid). Every
other member ``j`` then starts in a window ``[est_j, lst_j]``, first ``[D[h][j], -D[j][h]]`` from
the pairwise longest paths ``t(j) - t(i) >= D[i][j]`` (:func:`~.graph.group_distances`). Two
resource rules narrow the windows, the dependences carry every narrowing to all members, and a
window that becomes empty proves the II infeasible:

- **Energetic precedence** (the precedence-energy rule of constraint-based scheduling: Baptiste,
  Le Pape & Nuijten, "Constraint-Based Scheduling", 2001, ch. 3, 4). For a member ``v`` and a
  set ``S`` of users of a column with capacity ``c``: each ``u`` in ``S`` starts at or after
  ``est_u`` and at or before ``t(v) - D[u][v]``, so all their ``E`` footprint cycles on the
  column lie in ``[min(est_u + first_u), t(v) + max(last_u - D[u][v])]``. A window shorter than
  II maps to distinct rows, which hold at most ``c`` cycles each, so it is at least
  ``ceil(E / c)`` long: ``t(v) >= min(est_u + first_u) + ceil(E / c) - 1 - max(last_u - D[u][v])``
  (valid because ``ceil(E / c) <= II`` whenever II >= ResMII). The mirror rule bounds
  ``lst_v`` from the sets that must follow ``v``. For each ``v`` the sets tried are
  ``{u : est_u + first_u >= alpha, last_u - D[u][v] <= beta}`` for every threshold pair:
  O(k m^2) per column and round, vectorised.
- **Circular density** (Hall's condition on arcs): a member's cycles on a column lie in the arc
  ``[est_j + off, lst_j + off]`` of the row circle; for every arc ``A`` shorter than II, the
  cycles whose arcs lie inside ``A`` must fit in ``c * |A|`` cells. This generalises the
  interval check of :func:`~.mii.window_overload` to windows that wrap around II.

The bounds are necessary conditions, so a refutation is a proof; when they find nothing, the II
may still be infeasible. Blowfish (ChStone) is the motivating case: sixteen rounds of four
table reads share a memory port pair, so each round needs a cycle more than its dependence
chain; the energetic rule proves II 63..79 infeasible, which RecMII (60) and the interval
density bound (63) cannot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilesched.schedule.modulo.graph import CompiledGraph
from tilesched.schedule.modulo.mii import window_overload
from tilesched.schedule.modulo.paths import RecurrenceGroup

MAX_ROUNDS = 64
"""Propagation rounds per hub; each round narrows at least one window or stops."""

_NONE = np.iinfo(np.int64).min // 4
"""No bound (below every real start time, far from overflow)."""

CHUNK = 1 << 21
"""Largest ``members * users^2`` block the energetic rule builds at once (memory bound)."""


WINDOW_DENSITY, ENERGETIC, CIRCULAR_DENSITY = "window-density", "energetic", "circular-density"
PROOF_RULES = (WINDOW_DENSITY, ENERGETIC, CIRCULAR_DENSITY)


@dataclass(frozen=True)
class Refutation:
    """Why an II is infeasible: the ``rule`` (one of :data:`PROOF_RULES`), the hub member the
    windows are relative to, the column, a sentence, and (interval density) the window."""

    rule: str
    hub: str
    column: str
    detail: str
    window: tuple[int | None, int | None] = (None, None)


def refute_ii(cg: CompiledGraph, groups: list[RecurrenceGroup], dists: list[np.ndarray],
              ii: int, hubs: int = 2) -> Refutation | None:
    """A proof that ``ii`` is infeasible, or None: the interval density check of
    :func:`~.mii.window_overload` on every group first (cheap), then the propagated windows of
    :func:`refute_group`. ``dists``: each group's :func:`~.paths.group_distance_matrix`."""
    bounded = [(g, d) for g, d in zip(groups, dists, strict=True) if g.bounded]
    for group, dist in bounded:
        overload = window_overload(cg, group.members, dist.tolist(), ii)
        if overload is not None:
            return Refutation(WINDOW_DENSITY, overload.hub, overload.column, overload.text(),
                              (overload.first, overload.last))
    for group, dist in bounded:
        found = refute_group(cg, group.members, dist, ii, hubs)
        if found is not None:
            return found


@dataclass
class GroupColumn:
    """The users of one capacity column inside a group (indices into the group's members)."""

    col: int
    capacity: int
    users: np.ndarray
    first: np.ndarray
    last: np.ndarray
    cycles: np.ndarray


def group_columns(cg: CompiledGraph, members: tuple[int, ...]) -> list[GroupColumn]:
    """The columns the members load beyond their capacity (the only ones a rule can use)."""
    found: dict[int, list[tuple[int, int, int, int]]] = {}
    for j, v in enumerate(members):
        offsets: dict[int, list[int]] = {}
        for off, col in cg.usage[v]:
            offsets.setdefault(col, []).append(off)
        for col, offs in offsets.items():
            found.setdefault(col, []).append((j, min(offs), max(offs), len(offs)))
    out = []
    for col, rows in sorted(found.items()):
        cap = cg.column_capacity[col]
        if sum(r[3] for r in rows) <= cap or cap <= 0:
            continue
        users, first, last, cycles = (np.array(x, dtype=np.int64) for x in zip(*rows, strict=True))
        out.append(GroupColumn(col, cap, users, first, last, cycles))
    return out


def refute_group(cg: CompiledGraph, members: tuple[int, ...], dmat, ii: int,
                 hubs: int = 2) -> Refutation | None:
    """A proof that no schedule at ``ii`` exists for this group, or None (see the module
    docstring). ``hubs``: how many members (narrowest windows first) to fix in turn."""
    k = len(members)
    if k < 2:
        return None
    columns = group_columns(cg, members)
    if not columns:
        return None
    dist = np.asarray(dmat, dtype=np.int64)
    width = (-dist - dist.T).sum(axis=1)  # sum of window widths relative to each member
    for h in np.argsort(width, kind="stable")[:hubs]:
        found = _refute_from(cg, members, dist, columns, ii, int(h))
        if found is not None:
            return found
    return None


def _refute_from(cg, members, dist, columns, ii, h) -> Refutation | None:
    """Propagate windows with member ``h`` fixed at 0; a refutation or None."""
    hub = cg.ids[members[h]]
    est, lst, empty = propagate_windows(columns, dist, dist[h].copy(), -dist[:, h].copy(), ii)
    if empty is not None:
        names = "/".join(cg.columns[c.col] for c in columns)
        return Refutation(ENERGETIC, hub, names,
                          f"{cg.ids[members[empty]]} would have to start in "
                          f"[{est[empty]}, {lst[empty]}]")
    for column in columns:
        arc = _circular_overload(column, est, lst, ii)
        if arc is not None:
            start, length, count = arc
            return Refutation(CIRCULAR_DENSITY, hub, cg.columns[column.col],
                              f"{count} cycles must fall in the {length} rows from row "
                              f"{start} (mod {ii}), which hold {column.capacity * length}")
    return None


def propagate_windows(columns: list[GroupColumn], dist: np.ndarray, est: np.ndarray,
                      lst: np.ndarray, ii: int, rounds: int = MAX_ROUNDS):
    """Narrow the members' start windows ``[est, lst]`` by the energetic rule and the
    dependences until nothing changes: ``(est, lst, j)`` with ``j`` a member whose window
    emptied (a proof that no schedule keeps the given windows), else ``j`` None."""
    for _ in range(rounds):
        new_est, new_lst = est.copy(), lst.copy()
        for column in columns:
            np.maximum(new_est, _forward(column, est, dist, ii), out=new_est)
            np.minimum(new_lst, _backward(column, lst, dist, ii), out=new_lst)
        new_est = (new_est[:, None] + dist).max(axis=0)
        new_lst = (new_lst[None, :] - dist).min(axis=1)
        empty = np.flatnonzero(new_est > new_lst)
        if empty.size:
            return new_est, new_lst, int(empty[0])
        if np.array_equal(new_est, est) and np.array_equal(new_lst, lst):
            break
        est, lst = new_est, new_lst
    return est, lst, None


def _forward(column: GroupColumn, est: np.ndarray, dist: np.ndarray, ii: int) -> np.ndarray:
    """The energetic lower bound on every member's start (``-inf`` where none applies)."""
    a = est[column.users] + column.first                    # earliest first cycle, per user
    order = np.argsort(-a, kind="stable")
    a, users = a[order], column.users[order]
    cycles, last = column.cycles[order], column.last[order]
    w = last[None, :] - dist[users, :].T                     # (k, m): last cycle minus D[u][v]
    return _best(a, cycles, w, column.capacity, ii, upper=False)


def _backward(column: GroupColumn, lst: np.ndarray, dist: np.ndarray, ii: int) -> np.ndarray:
    """The energetic upper bound on every member's start (``+inf`` where none applies)."""
    a = lst[column.users] + column.last                     # latest last cycle, per user
    order = np.argsort(a, kind="stable")
    a, users = a[order], column.users[order]
    cycles, first = column.cycles[order], column.first[order]
    w = dist[:, users] + first[None, :]                     # (k, m): D[v][u] plus first cycle
    return -_best(-a, cycles, -w, column.capacity, ii, upper=True)


def _best(a: np.ndarray, cycles: np.ndarray, w: np.ndarray, cap: int, ii: int,
          upper: bool) -> np.ndarray:
    """``max over S`` of ``min(a[S]) + ceil(E(S) / cap) - 1 - max(w[v, S])`` per member ``v``,
    with users sorted by ``a`` descending and ``S`` ranging over the sets ``{a >= alpha,
    w <= beta}``: ``beta`` takes each distinct value of ``w[v]`` (few: users at the same
    dependence distance from ``v`` share it), ``alpha`` each user's ``a``. Chunked over
    members to bound memory."""
    k, m = w.shape
    thresholds = _distinct_per_row(w)                         # (k, T)
    unit = bool((cycles == 1).all())
    guard = int(cycles.sum()) > cap * ii                      # else ceil(E / cap) <= II always
    out = np.full(k, _NONE, dtype=np.int64)
    step = max(1, CHUNK // max(1, m * thresholds.shape[1]))
    for lo in range(0, k, step):
        wv, beta = w[lo:lo + step], thresholds[lo:lo + step]
        inside = wv[:, None, :] <= beta[:, :, None]           # (b, T, m): u in S
        if unit:
            count = np.cumsum(inside, axis=2, dtype=np.int64)
        else:
            count = np.cumsum(inside * cycles[None, None, :], axis=2)
        span = count if cap == 1 else -(-count // cap)
        value = a[None, None, :] + span - 1 - beta[:, :, None]
        keep = inside & (span <= ii) if guard else inside
        out[lo:lo + step] = np.where(keep, value, _NONE).max(axis=(1, 2))
    return out


def _distinct_per_row(w: np.ndarray) -> np.ndarray:
    """Each row's distinct values, ascending, padded with the row's largest value."""
    ordered = np.sort(w, axis=1)
    fresh = np.ones_like(ordered, dtype=bool)
    fresh[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    rank = np.cumsum(fresh, axis=1) - 1
    out = np.repeat(ordered[:, -1:], int(rank[:, -1].max()) + 1, axis=1)
    rows = np.nonzero(fresh)
    out[rows[0], rank[rows]] = ordered[rows]
    return out


def _circular_overload(column: GroupColumn, est: np.ndarray, lst: np.ndarray,
                       ii: int) -> tuple[int, int, int] | None:
    """An arc of rows shorter than II holding more cycles than it can, or None."""
    width = (lst[column.users] - est[column.users]) + (column.last - column.first) + 1
    keep = width < ii
    if int(column.cycles[keep].sum()) <= column.capacity:
        return None
    starts = (est[column.users] + column.first)[keep] % ii
    width, cycles = width[keep], column.cycles[keep]
    ends = (starts[None, :] - starts[:, None]) % ii + width[None, :]   # (arc start, user)
    order = np.argsort(ends, axis=1, kind="stable")
    ends = np.take_along_axis(ends, order, axis=1)
    count = np.cumsum(cycles[order], axis=1)
    over = (count > column.capacity * ends) & (ends < ii)
    if not over.any():
        return None
    r, c = np.argwhere(over)[0]
    return int(starts[r]), int(ends[r, c]), int(count[r, c])
