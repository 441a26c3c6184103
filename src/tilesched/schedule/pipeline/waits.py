"""Commit groups and exact ``wait_group`` counts of an asynchronous software pipeline (no IR).

Model (CUDA ``cp.async.commit_group`` / ``wait_group``; TVM RFC "Asynchronous
stage in software pipeline", 2022): async ops issued to a queue since its last
commit form the open group; ``commit`` closes it; ``wait(q, n)`` blocks until at
most ``n`` committed groups of ``q`` are incomplete, and groups complete in
commit order. The in-flight count a consumer may leave pending is the number of
groups committed after the group it needs ("producer head - consumer head").

1. :func:`build_template` places the commits of one kernel step: one group per
   async stage and queue, split when an op that must wait for the group comes
   between its members (TVM's interleaved producers).
2. :func:`instantiate` lays out concrete steps (prologue, kernel, epilogue) with
   the ops that exist in each (optionally predicated on the trip count).
3. :func:`solve` walks them once, numbering commits per queue, and puts before each
   consumer the wait with the *largest* correct pending, skipping waits an earlier
   one already implies.
4. :func:`static_plan` / :func:`dynamic_plan` fold the walk into prologue, one
   kernel body valid for every kernel iteration, and epilogue; dynamic trip
   counts get a predicated version for trips below ``S - 1`` whose commits are
   unconditional, so its counts stay exact.

Complexity: O(steps x ops x edges) for one walk; plans walk a few trip counts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from tilesched.schedule.pipeline.stages import (
    RAW,
    Edge,
    StagedOp,
    kernel_order,
    stage_count,
    steps,
)

OP, COMMIT, WAIT = "op", "commit", "wait"


def needs_wait(a: StagedOp, b: StagedOp, queue: int) -> bool:
    """Must ``b`` wait for ``a``'s work on ``queue``? Not when ``b`` runs only on that
    same in-order queue."""
    return queue in a.queues and not (b.queues == frozenset({queue}) and not b.inline)


@dataclass(frozen=True)
class Group:
    """A commit group of one kernel step: its queue, stage and member ops."""

    id: int
    queue: int
    stage: int
    members: tuple[int, ...]


@dataclass
class Template:
    """One kernel step: ``("op", id)`` and ``("commit", group id)`` entries in order."""

    entries: list[tuple[str, int]]
    groups: dict[int, Group]
    group_of: dict[tuple[int, int], int]  # (op id, queue) -> group id


def build_template(ops: dict[int, StagedOp], edges: Iterable[Edge]) -> Template:
    """Kernel order with a commit after each group (see the module docstring)."""
    into = defaultdict(list)
    for edge in edges:
        into[edge.dst].append(edge)
    entries: list[tuple[str, int]] = []
    groups: dict[int, Group] = {}
    open_groups: dict[int, tuple[int, list[int]]] = {}  # queue -> (stage, members)

    def close(queue: int) -> None:
        stage, members = open_groups.pop(queue)
        last = max(entries.index((OP, m)) for m in members)
        gid = len(groups)
        entries.insert(last + 1, (COMMIT, gid))
        groups[gid] = Group(gid, queue, stage, tuple(members))

    for op in kernel_order(ops.values()):
        for queue in sorted(open_groups):
            if _interleaves(op, open_groups[queue][1], into[op.id], ops, queue):
                close(queue)
        for queue in sorted(op.queues):
            if queue in open_groups and open_groups[queue][0] != op.stage:
                close(queue)
            open_groups.setdefault(queue, (op.stage, []))[1].append(op.id)
        entries.append((OP, op.id))
    for queue in sorted(open_groups):
        close(queue)
    group_of = {(m, g.queue): g.id for g in groups.values() for m in g.members}
    return Template(entries, groups, group_of)


def _interleaves(op: StagedOp, members: list[int], edges: list[Edge],
                 ops: dict[int, StagedOp], queue: int) -> bool:
    """Does ``op`` consume an open group's work (any iteration), or need this very instance?"""
    for edge in edges:
        if edge.src in members and needs_wait(ops[edge.src], op, queue):
            same_step = ops[edge.src].stage == op.stage + edge.distance
            if edge.kind == RAW or same_step:
                return True
    return False


@dataclass(frozen=True)
class Item:
    """One thing a step does: an op or commit of an iteration, or a wait.

    ``ref`` is the op id, group id or (for waits) the queue. ``guard`` > 0 means
    the item runs only when the trip count is at least ``guard``.
    """

    kind: str
    ref: int
    iteration: int = 0
    pending: int = 0
    guard: int = 0


Presence = Callable[[str, int], "int | None"]


def concrete(trips: int) -> Presence:
    """Items of iterations ``0 .. trips-1`` exist unconditionally."""
    return lambda kind, it: 0 if 0 <= it < trips else None


def predicated(max_trips: int) -> Presence:
    """For every trip count up to ``max_trips``: ops guarded, commits unconditional."""
    def present(kind: str, it: int) -> int | None:
        if not 0 <= it < max_trips:
            return None
        return it + 1 if kind == OP else 0
    return present


def instantiate(template: Template, ops: dict[int, StagedOp], step_list: Iterable[int],
                present: Presence) -> list[list[Item]]:
    """The items of each step in ``step_list`` (ops and commits, no waits yet)."""
    out = []
    for t in step_list:
        items = []
        for kind, ref in template.entries:
            stage = ops[ref].stage if kind == OP else template.groups[ref].stage
            guard = present(kind, t - stage)
            if guard is not None:
                items.append(Item(kind, ref, t - stage, guard=guard))
        out.append(items)
    return out


@dataclass
class Walk:
    """Steps with their waits, and where each instance is issued and known complete."""

    steps: list[list[Item]]
    issue_at: dict[tuple[int, int], int] = field(default_factory=dict)
    guard_of: dict[tuple[int, int], int] = field(default_factory=dict)
    done_at: dict[tuple[int, int], int] = field(default_factory=dict)
    undrained: set[int] = field(default_factory=set)  # queues with groups not known complete


class _Queues:
    """Per-queue commit counts and what is known complete (per guard level)."""

    def __init__(self) -> None:
        self.count: dict[int, int] = defaultdict(int)
        self.known: dict[int, dict[int, int]] = defaultdict(dict)
        self.done_pos: dict[tuple[int, int], int] = {}  # (queue, ordinal) -> position

    def covered(self, queue: int, guard: int) -> int:
        """Highest ordinal known complete for an item running under ``guard``."""
        return max((v for g, v in self.known[queue].items() if g <= guard), default=-1)

    def learn(self, queue: int, guard: int, ordinal: int, position: int) -> None:
        old = self.covered(queue, 0) if guard == 0 else -1
        self.known[queue][guard] = max(self.known[queue].get(guard, -1), ordinal)
        if guard == 0:
            for k in range(old + 1, ordinal + 1):
                self.done_pos.setdefault((queue, k), position)


def solve(template: Template, ops: dict[int, StagedOp], edges: Iterable[Edge],
          laid_out: list[list[Item]]) -> Walk:
    """Insert exact waits into ``laid_out`` (see the module docstring)."""
    into = defaultdict(list)
    for edge in edges:
        into[edge.dst].append(edge)
    queues = _Queues()
    ordinal: dict[tuple[int, int], int] = {}  # (group id, iteration) -> commit ordinal
    walk = Walk([])
    position = 0
    for items in laid_out:
        out: list[Item] = []
        for item in items:
            if item.kind == COMMIT:
                queue = template.groups[item.ref].queue
                ordinal[(item.ref, item.iteration)] = queues.count[queue]
                queues.count[queue] += 1
            else:
                for queue, need in sorted(_needs(item, into, ops, template, ordinal, walk).items()):
                    if queues.covered(queue, item.guard) >= need:
                        continue
                    out.append(Item(WAIT, queue, pending=queues.count[queue] - 1 - need,
                                    guard=item.guard))
                    queues.learn(queue, item.guard, need, position)
                    position += 1
                walk.issue_at[(item.ref, item.iteration)] = position
                walk.guard_of[(item.ref, item.iteration)] = item.guard
            out.append(item)
            position += 1
        walk.steps.append(out)
    _record_completion(walk, template, ops, ordinal, queues)
    return walk


def _needs(item: Item, into, ops, template: Template, ordinal, walk: Walk) -> dict[int, int]:
    """Per queue, the newest commit ordinal ``item`` must see complete."""
    need: dict[int, int] = {}
    consumer = ops[item.ref]
    for edge in into[item.ref]:
        it = item.iteration - edge.distance
        if (edge.src, it) not in walk.issue_at:
            continue
        producer = ops[edge.src]
        for queue in producer.queues:
            if not needs_wait(producer, consumer, queue):
                continue
            key = (template.group_of[(edge.src, queue)], it)
            if key not in ordinal:
                raise AssertionError(f"op {item.ref} needs op {edge.src}'s group before its commit")
            need[queue] = max(need.get(queue, -1), ordinal[key])
    return need


def _record_completion(walk: Walk, template: Template, ops, ordinal, queues: _Queues) -> None:
    """Fill ``done_at`` for async instances, and ``undrained``: queues where, for some trip
    count (guard level), a group holding real work is not known complete at the end."""
    needed: dict[int, dict[int, int]] = defaultdict(dict)  # queue -> guard -> newest ordinal
    for (op_id, it) in walk.issue_at:
        positions = []
        for queue in ops[op_id].queues:
            k = ordinal.get((template.group_of[(op_id, queue)], it))
            positions.append(queues.done_pos.get((queue, k), float("inf")))
            guard = walk.guard_of[(op_id, it)]
            needed[queue][guard] = max(needed[queue].get(guard, -1), k)
        if positions:
            walk.done_at[(op_id, it)] = max(positions)
    for queue, by_guard in needed.items():
        levels = sorted(set(by_guard) | set(queues.known[queue]))
        newest = -1
        for level in levels:
            newest = max(newest, by_guard.get(level, -1))
            if queues.covered(queue, level) < newest:
                walk.undrained.add(queue)


@dataclass
class Plan:
    """Prologue, kernel and epilogue with their waits.

    Iterations of op items: absolute in ``prologue`` and ``short``; offsets from
    the kernel counter (the iteration of the last stage) in ``kernel``; absolute
    in ``epilogue``, or offsets from the trip count when ``trip_relative``.
    ``short`` (dynamic trip counts only) runs every trip count below ``S - 1``
    with guarded ops. ``drain``/``short_drain``: queues that need a final
    ``wait 0`` because some group is never waited for inside the loop.
    """

    stages: int
    prologue: list[list[Item]]
    kernel: list[Item] | None = None
    kernel_trips: int | None = None
    epilogue: list[list[Item]] = field(default_factory=list)
    trip_relative: bool = False
    short: list[list[Item]] | None = None
    drain: list[int] = field(default_factory=list)
    short_drain: list[int] = field(default_factory=list)


def merge_steps(instances: list[list[Item]], bases: list[int]) -> list[Item]:
    """One step valid for all ``instances`` of the same items: every wait, with the
    smallest pending seen. Iterations become offsets from each instance's base."""
    waits: dict[tuple[int, int], int] = {}
    skeleton: list[Item] | None = None
    for items, base in zip(instances, bases, strict=True):
        plain: list[Item] = []
        for item in items:
            if item.kind == WAIT:
                key = (len(plain), item.ref)
                waits[key] = min(waits.get(key, item.pending), item.pending)
            else:
                plain.append(replace(item, iteration=item.iteration - base))
        if skeleton is None:
            skeleton = plain
        elif skeleton != plain:
            raise AssertionError("merged steps differ in their ops")
    out: list[Item] = []
    for index, item in enumerate([*(skeleton or []), None]):
        out.extend(Item(WAIT, q, pending=p) for (at, q), p in sorted(waits.items()) if at == index)
        if item is not None:
            out.append(item)
    return out


def static_plan(template: Template, ops: dict[int, StagedOp], edges: list[Edge], trips: int,
                repeat: int) -> Plan:
    """Plan for a known trip count; ``repeat`` kernel iterations suffice to reach the
    steady state (longer loops repeat the same kernel body)."""
    stages = stage_count(ops.values())
    k_trips = trips - stages + 1
    if k_trips <= 1:
        walk = solve(template, ops, edges,
                     instantiate(template, ops, steps(trips, stages), concrete(trips)))
        return Plan(stages, walk.steps, drain=sorted(walk.undrained))
    eff = min(trips, stages - 1 + max(repeat, 2))
    walk = solve(template, ops, edges,
                 instantiate(template, ops, steps(eff, stages), concrete(eff)))
    kernel_steps = range(stages - 1, eff)
    kernel = merge_steps([walk.steps[t] for t in kernel_steps],
                         [t - stages + 1 for t in kernel_steps])
    shift = trips - eff
    epilogue = [[replace(i, iteration=i.iteration + shift) if i.kind != WAIT else i for i in step]
                for step in walk.steps[eff:]]
    return Plan(stages, walk.steps[:stages - 1], kernel, k_trips, epilogue,
                drain=sorted(walk.undrained))


def dynamic_plan(template: Template, ops: dict[int, StagedOp], edges: list[Edge],
                 repeat: int) -> Plan:
    """Plan for a trip count known only at run time (see :class:`Plan`)."""
    stages = stage_count(ops.values())
    trip_list = list(range(stages - 1, stages + max(repeat, 2)))
    walks = [solve(template, ops, edges,
                   instantiate(template, ops, steps(t, stages), concrete(t))) for t in trip_list]
    prologue = [merge_steps([w.steps[s] for w in walks], [0] * len(walks))
                for s in range(stages - 1)]
    pairs = [(w.steps[s], s - stages + 1) for w, t in zip(walks, trip_list, strict=True)
             for s in range(stages - 1, t)]
    kernel = merge_steps([p[0] for p in pairs], [p[1] for p in pairs])
    epilogue = [merge_steps([w.steps[t + e] for w, t in zip(walks, trip_list, strict=True)],
                            trip_list) for e in range(stages - 1)]
    drain = sorted(set().union(*(w.undrained for w in walks)))
    plan = Plan(stages, prologue, kernel, None, epilogue, trip_relative=True, drain=drain)
    if stages >= 2:
        short = solve(template, ops, edges, instantiate(
            template, ops, range(2 * stages - 3), predicated(stages - 2)))
        plan.short, plan.short_drain = short.steps, sorted(short.undrained)
    return plan
