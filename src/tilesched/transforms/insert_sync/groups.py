"""insert-sync for group targets (CUDA cp.async): commit_group and exact wait_group counts.

Async copies issued to a queue since its last commit form the open group. A
``commit_group`` closes each run of consecutive async copies. Before an op that
depends on an async copy (RAW, WAR or WAW), a ``wait_group`` with the largest
``pending`` that still guarantees the copy's group is complete: the number of
groups committed after it. In a loop, a consumer that comes before its producer
in the body waits for the previous iteration's group: ``pending`` counts the
groups committed after it in that iteration plus those committed before the
consumer in this one. Loops and conditionals with async copies inside are
items: a consumer after them waits for everything (``pending = 0``), and they
count as no group for earlier copies (a loop may run zero times, a branch may
not be taken: only the commits outside them are certain). Two copies on one
queue need no wait (in order), within an iteration or carried. The copies right
before a loop that copies on the same queue (a multistage prologue) are one
group each, and need no wait before the loop when its own wait covers them at
the iteration that first uses them (:func:`_loop_waits_for`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.ir import Block, Operation

from tilesched.analysis.dependence import loop_carried_dependences
from tilesched.analysis.effects import effects_of
from tilesched.analysis.reduced_deps import reduced_dependences
from tilesched.analysis.units import op_route
from tilesched.ir import sync as S
from tilesched.ir.affine import constant_value
from tilesched.ir.blocks import body_ops, insert_after, insert_before
from tilesched.ir.sync import make_commit, make_wait_group
from tilesched.target.model import Target


@dataclass
class _Queue:
    committed: int = 0                       # groups committed so far in this block walk
    known_done: int = 0                      # groups known complete (by an earlier wait)
    group_of: dict[int, int] = field(default_factory=dict)   # op index -> group index
    open_ops: list[int] = field(default_factory=list)


def sync_groups(block: Block, target: Target) -> None:
    """Insert commit/wait groups in ``block`` and, recursively, in nested regions."""
    ops = body_ops(block)
    trusted = {id(op) for op in ops if self_synchronized(op)}  # before we add our own ops
    _sync_nested(ops, trusted, target)
    _sync_straight(body_ops(block), target, carried=[], terminator=None, trusted=trusted)


def _sync_nested(ops: list[Operation], trusted: set[int], target: Target) -> None:
    for op in ops:
        if id(op) in trusted:
            continue
        if isinstance(op, scf.ForOp):
            _sync_loop(op, target)
        elif op.regions:
            for region in op.regions:
                for inner in region.blocks:
                    sync_groups(inner, target)


def _sync_loop(loop: scf.ForOp, target: Target) -> None:
    block = loop.body.block
    trusted = {id(op) for op in body_ops(block) if self_synchronized(op)}
    _sync_nested(body_ops(block), trusted, target)
    ops = body_ops(block)
    all_ops = list(block.ops)
    index_of = {id(op): i for i, op in enumerate(ops)}
    carried = [(index_of[id(all_ops[d.src])], index_of[id(all_ops[d.dst])], d.distance)
               for d in loop_carried_dependences(loop)
               if id(all_ops[d.src]) in index_of and id(all_ops[d.dst]) in index_of]
    _sync_straight(ops, target, carried, terminator=block.last_op, trusted=trusted)


def self_synchronized(op: Operation) -> bool:
    """A region that already has commit/wait groups (e.g. from software-pipeline): its waits
    are trusted for what happens inside it, and it is not synchronized again."""
    return bool(op.regions) and any(isinstance(inner, S.CommitGroupOp | S.WaitGroupOp)
                                    for inner in op.walk())


def _async_queue(op: Operation, target: Target) -> int | None:
    rule = op_route(op, target)
    if rule is not None and rule.unit in target.units and target.units[rule.unit].kind == "async":
        return rule.async_queue if rule.async_queue is not None else 0
    if op.regions:
        queues = {_async_queue(inner, target) for inner in op.walk() if inner is not op}
        queues.discard(None)
        return min(queues) if queues else None
    return None


def _sync_straight(ops: list[Operation], target: Target, carried, terminator,
                   trusted: set[int]) -> None:
    """Commit runs of async ops; wait before consumers (see the module docstring)."""
    queue_of = [_async_queue(op, target) for op in ops]
    commits_after = _commit_points(ops, queue_of)
    producers = defaultdict(list)
    for dep in reduced_dependences(ops):
        if queue_of[dep.src] is None or id(ops[dep.dst]) in trusted:
            continue
        if queue_of[dep.dst] == queue_of[dep.src] and not ops[dep.dst].regions:
            continue  # one in-order queue: the later copy runs after the earlier one
        if _loop_waits_for(ops, dep.src, dep.dst, queue_of, commits_after, target):
            continue  # the loop's own wait covers the copy before its first use (a prologue)
        producers[dep.dst].append(dep.src)
    # First walk without back edges: which groups are known complete at the end of the body?
    dry, done_groups = _plan(ops, queue_of, producers, {}, commits_after)
    back = defaultdict(list)
    for src, dst, distance in carried:
        queue = queue_of[src]
        if queue is None or (src < dst and src in producers[dst]):
            continue  # the wait for this iteration's group (younger) implies the older one
        if queue_of[dst] == queue and not ops[dst].regions:
            continue  # one in-order queue, as within an iteration: the refill runs after
        if ops[src].regions:  # groups committed inside a nested region: wait for all of them
            back[dst].append((src, 0))
            continue
        if dry.group_of_op.get(src, -1) < done_groups.get(queue, 0) and dry.group_of_op.get(src) is not None:
            continue  # waited for later in the same iteration: implied for the next one
        back[dst].append((src, distance))
    plan, _ = _plan(ops, queue_of, producers, back, commits_after)
    for j in sorted(commits_after):
        commit = make_commit(queue_of[j])
        if j + 1 < len(ops):
            insert_before(ops[j + 1], [commit])
        elif terminator is not None:
            insert_before(terminator, [commit])
        else:
            insert_after(ops[j], [commit])
    for j, waits in plan.waits.items():  # after the commits: a wait goes right before its consumer
        insert_before(ops[j], [make_wait_group(q, pending) for q, pending in sorted(waits.items())])


_NESTED = -1  # group_of a nested loop / conditional: however many groups it committed


@dataclass
class _Plan:
    waits: dict[int, dict[int, int]] = field(default_factory=dict)  # op index -> queue -> pending
    group_of_op: dict[int, int] = field(default_factory=dict)


def _plan(ops, queue_of, producers, back, commits_after):
    """Walk the ops once, deciding the waits; returns the plan and groups done at the end."""
    per_iteration = defaultdict(int)
    for position in commits_after:
        per_iteration[queue_of[position]] += 1
    queues: dict[int, _Queue] = defaultdict(_Queue)
    plan = _Plan()
    for j, op in enumerate(ops):
        waits = _waits_for(j, producers[j], back.get(j, []), queue_of, queues, commits_after,
                           per_iteration)
        if waits:
            plan.waits[j] = waits
        if isinstance(op, S.CommitGroupOp):
            _close_group(queues[op.queue.value.data])
        elif isinstance(op, S.WaitGroupOp) and op.pending is not None:
            state = queues[op.queue.value.data]
            state.known_done = max(state.known_done, state.committed - op.pending.value.data)
        queue = queue_of[j]
        if queue is not None:
            state = queues[queue]
            if op.regions:  # a nested loop / conditional: its groups are waited for in full
                state.group_of[j] = _NESTED
            else:
                state.open_ops.append(j)
        if j in commits_after:
            _close_group(queues[queue_of[j]])
    for state in queues.values():
        plan.group_of_op.update(state.group_of)
    return plan, {q: s.known_done for q, s in queues.items()}


def _close_group(state: _Queue) -> None:
    for index in state.open_ops:
        state.group_of[index] = state.committed
    state.open_ops.clear()
    state.committed += 1


def _commit_points(ops, queue_of) -> set[int]:
    """Indices of async ops that end a run of async copies to one queue. A run right before a
    loop that copies on the same queue (the prologue of a multistage loop) is one group per
    copy: the loop's own wait can then cover each copy at the iteration that first uses it."""
    points = set()
    for j, queue in enumerate(queue_of):
        if queue is None or ops[j].regions:
            continue
        nxt = next((k for k in range(j + 1, len(ops))
                    if _is_tile_work(ops[k]) or isinstance(ops[k], S.CommitGroupOp)), None)
        if nxt is not None and isinstance(ops[nxt], S.CommitGroupOp):
            continue  # already committed
        if nxt is None or queue_of[nxt] != queue or ops[nxt].regions:
            points.add(j)
        elif _run_ends_in_loop(ops, queue_of, nxt, queue):
            points.add(j)
    return points


def _run_ends_in_loop(ops, queue_of, start: int, queue: int) -> bool:
    """Is the first tile work after the run of copies from ``start`` a loop copying on ``queue``?"""
    for k in range(start, len(ops)):
        if isinstance(ops[k], S.CommitGroupOp):
            return False  # the program commits the run itself
        if not _is_tile_work(ops[k]):
            continue
        if queue_of[k] == queue and not ops[k].regions:
            continue
        return isinstance(ops[k], scf.ForOp) and queue_of[k] == queue
    return False


_COVER_ITERATIONS = 16  # iterations of a loop searched for the wait that covers a prologue copy


def _loop_waits_for(ops, src: int, dst: int, queue_of, commits_after, target: Target) -> bool:
    """Does loop ``ops[dst]`` (already synchronized) wait for copy ``ops[src]`` before any op of
    it touches what the copy accesses? Iterations are walked from the lower bound, counting the
    groups committed after the copy's: a ``wait_group`` with ``pending = P`` completes the copy
    once at least ``P`` groups were committed after it. A conflicting op first (other than a
    copy on the same in-order queue), or none of either within a few iterations: no."""
    loop, queue = ops[dst], queue_of[src]
    if not isinstance(loop, scf.ForOp) or src > dst or queue_of[dst] != queue:
        return False  # (a loop copying on the queue: what it leaves, later ops wait for in full)
    lb, step = constant_value(loop.lb), constant_value(loop.step)
    body = body_ops(loop.body.block)
    if lb is None or step is None or step <= 0 or any(op.regions for op in body):
        return False
    copied = effects_of(ops[src])
    if copied.unknown:
        return False
    after = sum(1 for p in commits_after if src <= p < dst and queue_of[p] == queue) - 1
    after += sum(1 for op in ops[src + 1:dst] if isinstance(op, S.CommitGroupOp)
                 and op.queue.value.data == queue)
    if after < 0:
        return False  # the copy's group is still open at the loop
    iv = loop.body.block.args[0]
    for trip in range(_COVER_ITERATIONS):
        env = {iv: lb + trip * step}
        for op in body:
            if isinstance(op, S.CommitGroupOp):
                after += op.queue.value.data == queue
            elif isinstance(op, S.WaitGroupOp):
                if op.queue.value.data == queue and op.pending is not None \
                        and after >= op.pending.value.data:
                    return True
            elif _is_tile_work(op) and not (_async_queue(op, target) == queue):
                if _conflicts_at(copied, effects_of(op), env):
                    return False
    return False


def _conflicts_at(first, second, env) -> bool:
    """May ``first`` (outside the loop) and ``second`` (at the iteration ``env`` gives) conflict?"""
    if second.unknown:
        return True
    for a in first.accesses:
        for b in second.accesses:
            if a.region.root is not b.region.root or not (a.write or b.write):
                continue
            try:
                x, y = a.region.concrete(env), b.region.concrete(env)
            except (ValueError, KeyError):
                return True  # offsets not known at this iteration
            if all(xs < ye and ys < xe for (xs, xe), (ys, ye) in zip(x, y, strict=True)):
                return True
    return False


def _is_tile_work(op: Operation) -> bool:
    is_tile_op = op.name.startswith("tile.") and op.name not in ("tile.view", "tile.slot")
    return is_tile_op or bool(op.regions)


def _waits_for(j, producer_ids, back_ids, queue_of, queues, commits_after, per_iteration):
    """The ``pending`` count per queue that op ``j`` must wait for (largest correct)."""
    waits: dict[int, int] = {}
    for i in producer_ids:
        queue = queue_of[i]
        state = queues[queue]
        group = state.group_of.get(i)
        if group is None:
            continue  # still open: only possible for async -> async in one run (ordered by issue)
        if group == _NESTED:
            waits[queue] = 0
            continue
        pending = state.committed - group - 1
        needed_done = state.committed - pending
        if state.known_done >= needed_done:
            continue
        waits[queue] = min(waits.get(queue, pending), pending)
    for i, distance in back_ids:
        queue = queue_of[i]
        state = queues[queue]
        if distance == 0:  # a nested region's groups from an earlier iteration
            waits[queue] = 0
            continue
        after_in_previous = sum(1 for p in commits_after if p >= i and queue_of[p] == queue) - 1
        pending = max(0, after_in_previous + state.committed
                      + (distance - 1) * per_iteration[queue])
        waits[queue] = min(waits.get(queue, pending), pending)
    for queue, pending in waits.items():
        state = queues[queue]
        state.known_done = max(state.known_done, state.committed - pending)
    return waits
