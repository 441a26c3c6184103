"""Planning flags for a loop body whose iterations follow each other.

The body is planned as straight-line code (:func:`~.plan.plan_flags`) plus *back-edge* flags
for loop-carried dependences whose consumer comes first in the body: set after the producer,
waited before the consumer in the next iteration, pre-set before the loop and drained after
it. :func:`reuse_is_safe` replays two iterations to check that ids are reused only along
happens-before across the back edge; otherwise iterations are serialized with ``barrier_all``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from tilesched.schedule.flags.clocks import StaticClocks
from tilesched.schedule.flags.ops import (
    BARRIER_ALL,
    PIPE_BARRIER,
    SET,
    WAIT,
    Item,
    SyncOp,
    count_fallbacks,
)
from tilesched.schedule.flags.plan import FLAG, Need, allocate, plan_flags, required_syncs
from tilesched.schedule.flags.pool import OutOfIds


@dataclass
class LoopFlagPlan:
    """Flags for one loop body: the body's inserts, plus flags set before the loop
    (``presets``) and drained after it (``drains``) for back-edge dependences."""

    body: list[SyncOp]
    presets: list[SyncOp]
    drains: list[SyncOp]
    peak_events: dict[str, int]
    serialized: bool = False  # fell back to a barrier_all at the end of each iteration


def plan_loop_flags(items: list[Item], deps: list[tuple[int, int]],
                    carried: list[tuple[int, int, int]], limit: int,
                    pipelined: frozenset[str] = frozenset(), per_slot: bool = True,
                    caps: dict[tuple[str, str], int] | None = None,
                    ordered: frozenset = frozenset(), rolled: bool = False) -> LoopFlagPlan:
    """Flags for a loop body whose iterations follow each other.

    ``deps`` are intra-iteration dependences, ``carried`` loop-carried ones
    ``(producer, consumer, distance)``. The body is planned as two iterations one after
    the other (:func:`~.plan.required_syncs` on the doubled body): the second
    iteration's needs are the plan. A need whose producer lies in the first iteration is
    a *back-edge flag*: set after that producer, waited before its consumer in the next
    iteration, pre-set before the loop and drained after it (so zero-trip and short loops
    stay balanced). Each consumer waits for the latest producer per unit it does not
    already know, so a carried dependence through slot ``s`` of a multi-buffered buffer
    gets its own flag, set after the last access of that slot and waited before the
    next one (per slot), and back-edge flags implied by other flags get nothing.

    A carried dependence whose consumer comes after its producer in the body is
    synchronized as if intra-iteration: stronger, and the only correct choice with a
    constant id (a flag set in every iteration and waited one iteration later would be
    set twice before its first wait). Back-edge flags take ids from the top of the pair's
    range, the intra-iteration flags the rest; when that leaves the intra-iteration flags
    short of ids, back-edge flags of the pair are widened (two become one: the later set,
    the earlier wait) before anything else. Flag reuse across iterations is checked on two
    unrolled iterations; when some id would be re-set before its previous wait
    happens-before the set, the plan falls back to a ``barrier_all`` at the end of each
    iteration. ``per_slot=False`` is the previous plan (one back-edge flag per pair, kept
    for comparison). ``caps[pair]`` limits the pair to ids below it (the rest belong to
    nested regions); a pair left without an id raises :class:`~.pool.OutOfIds`. When the
    replay finds a back-edge flag that may be re-set before its previous wait, its producer
    is ordered after its consumer in the body (``ordered`` lists those done) and the body
    is planned again; only then does the plan fall back to serializing.

    ``rolled``: carried dependences that are prefetches into the next slot (distance 1,
    producer before consumer) get *rotating* flags (:func:`_with_rotating`).
    """
    caps = dict(caps or {})
    if not per_slot:
        return _one_flag_per_pair(items, deps, carried, limit, pipelined)
    far = sorted({(p, c, d) for p, c, d in carried if rolled and d >= 2 and _cross(items, p, c)})
    carried = [dep for dep in carried if dep not in far]
    forward, edges, ahead = _loop_edges(items, deps, carried, rolled)
    intra, back_flags, back_syncs, rotating = _split_needs(items, edges, pipelined)
    if ahead or far:
        plan = _with_rotating(items, limit, caps, intra, back_flags, back_syncs, rotating, far)
        if plan is not None:
            return plan
        return plan_loop_flags(items, deps, carried + far, limit, pipelined, caps=caps,
                               ordered=ordered)
    if back_flags and limit < 2:
        return _serialized(items, forward, limit, pipelined, caps)
    plan = _with_back_flags(items, intra, back_flags, back_syncs, limit, caps)
    unsafe = unsafe_reuse(items, plan.body, plan.presets)
    if unsafe is None:
        return plan
    return _order_or_serialize(items, deps, carried, forward, limit, pipelined, caps, ordered,
                               unsafe)


def _loop_edges(items, deps, carried, rolled):
    """The dependences of two iterations one after the other: ``(forward, edges, ahead)``.

    ``forward`` are the intra-iteration ones (a carried dependence whose consumer comes after
    its producer counts as one, unless it is ``ahead``: distance 1 with ``rolled``), ``edges``
    those of the doubled body (back-edge and ``ahead`` ones from the first iteration into the
    second)."""
    n = len(items)
    back = [(p, c) for p, c, _ in carried if p >= c]
    ahead = [(p, c) for p, c, d in carried if p < c and rolled and d == 1]
    forward = list(deps) + [(p, c) for p, c, d in carried if p < c and (p, c) not in ahead]
    edges = forward + [(p + n, c + n) for p, c in forward] + [
        (p, c + n) for p, c in back + ahead]
    return forward, edges, ahead


def _split_needs(items, edges, pipelined):
    """The second iteration's needs of the doubled body: ``(intra, back_flags, back_syncs,
    rotating)`` - intra-iteration needs, back-edge flags per unit pair (producer at or after
    the consumer), other back-edge syncs, and flags from a producer before its consumer in
    the previous iteration (the rotating candidates)."""
    n = len(items)
    intra, back_flags, back_syncs = [], defaultdict(list), []
    rotating: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for need in required_syncs(items + items, edges, pipelined):
        if need.consumer < n:
            continue  # the first iteration only provides what the second one knows
        if need.producer >= n:
            intra.append(Need(need.kind, need.producer - n, need.consumer - n))
        elif need.kind == FLAG:
            pair = (items[need.producer].unit, items[need.consumer - n].unit)
            if need.producer < need.consumer - n:
                rotating[pair].append((need.producer, need.consumer - n))
            else:
                back_flags[pair].append((need.producer, need.consumer - n))
        elif need.kind == BARRIER_ALL:
            back_syncs.append(SyncOp(need.consumer - n, BARRIER_ALL, order=50))
        else:
            unit = items[need.producer].unit
            back_syncs.append(SyncOp(need.consumer - n, PIPE_BARRIER, unit, unit, order=60))
    return intra, back_flags, back_syncs, rotating


def _fit_back_flags(items, intra, back_flags, limit, caps):
    """Back-edge flags per pair widened until they fit beside the pair's intra-iteration flags,
    then (while the allocation needs fallbacks) the widest pair widened once more; returns the
    flags and the allocation of the intra-iteration needs."""
    flags = {pair: sorted(set(found)) for pair, found in back_flags.items()}
    intra_pairs = {(items[n.producer].unit, items[n.consumer].unit) for n in intra if n.kind == FLAG}
    for pair, found in flags.items():
        room = caps.get(pair, limit) - (pair in intra_pairs)
        if room < 1:
            raise OutOfIds(pair)
        while len(found) > room:
            found[:] = _widen(found)
    while True:
        reserved = dict(caps)
        reserved.update({pair: caps.get(pair, limit) - len(found) for pair, found in flags.items()})
        plan = allocate(items, intra, limit, reserved)
        if not count_fallbacks(plan.ops) or not any(len(f) > 1 for f in flags.values()):
            return flags, plan
        widest = max(flags, key=lambda pair: len(flags[pair]))
        flags[widest] = _widen(flags[widest])


def _with_back_flags(items, intra, back_flags, back_syncs, limit, caps) -> LoopFlagPlan:
    """The plan with constant back-edge flags: ids from the top of each pair's range, set after
    the producer, waited before the consumer, pre-set before the loop and drained after it."""
    flags, plan = _fit_back_flags(items, intra, back_flags, limit, caps)
    body = plan.ops + back_syncs
    presets, drains = [], []
    peaks = dict(plan.peak_events)
    for pair, found in flags.items():
        for index, (producer, consumer) in enumerate(found):
            event = caps.get(pair, limit) - 1 - index
            body.append(SyncOp(producer + 1, SET, pair[0], pair[1], event, order=15 + index / 64))
            body.append(SyncOp(consumer, WAIT, pair[0], pair[1], event, order=20 + index / 64))
            presets.append(SyncOp(0, SET, pair[0], pair[1], event))
            drains.append(SyncOp(0, WAIT, pair[0], pair[1], event))
        key = f"{pair[0]}->{pair[1]}"
        peaks[key] = peaks.get(key, 0) + len(found)
    body.sort(key=lambda s: (s.position, s.order))
    return LoopFlagPlan(body, presets, drains, peaks)


def _order_or_serialize(items, deps, carried, forward, limit, pipelined, caps, ordered,
                        unsafe) -> LoopFlagPlan:
    """An id may be re-set before its previous wait is known to the setting unit: order the
    set's producer after the wait's consumer (a flag, unless implied) and plan again, or
    serialize the iterations when that was tried already (or too often)."""
    consumer, producer, distance = unsafe
    if unsafe in ordered or producer < 0 or len(ordered) >= 2 * limit:
        return _serialized(items, forward, limit, pipelined, caps)
    if distance == 0:
        deps, more = list(deps) + [(consumer, producer)], list(carried)
    else:
        deps, more = deps, list(carried) + [(consumer, producer, 1)]
    return plan_loop_flags(items, deps, more, limit, pipelined, caps=caps,
                           ordered=ordered | {unsafe})


def _cross(items: list[Item], p: int, c: int) -> bool:
    """Producer and consumer on different queued units (a flag orders them)."""
    return (items[p].unit is not None and items[c].unit is not None and not items[p].inline
            and not items[c].inline and items[p].unit != items[c].unit)


def _with_rotating(items, limit, caps, intra, back_flags, back_syncs, rotating, far
                   ) -> LoopFlagPlan | None:
    """The plan with rotating flags (:func:`plan_loop_flags`, ``rolled``), trying ``M`` = 2, 3,
    4 ids per rotating flag, first with constant back-edge flags, then with rotating ones
    too (a back-edge flag set in every iteration may otherwise be re-set before its wait
    when the consumer no longer waits for this iteration's prefetch). Carried dependences
    at distance ``d`` >= 2 (``far``) not implied by the other flags get a rotating flag
    waited ``d`` iterations later (``max(M, d + 1)`` ids). None when nothing fits without
    widening or replays safely.

    ``rolled``: a carried dependence at distance 1 whose producer comes *before* its consumer
    in the body (a prefetch into slot ``(i + 1) mod N`` consumed as slot ``i mod N`` next
    iteration) gets a *rotating* flag instead: its id is ``base + (i + shift) mod M``
    (``M`` ids of the pair, ``M`` >= 2), set after the producer in iteration ``i``, waited
    before the consumer in iteration ``i + 1`` (the id of ``i``), pre-set before the loop
    with the id of iteration -1 and drained after it with the id of the last iteration. The
    consumer then no longer waits for this iteration's prefetch. When the ids do not fit,
    a pair would need widening, or the replay finds a re-set that may come before its
    previous wait (for every ``M`` tried), the plan is the one without rotating flags."""
    caps = dict(caps or {})
    intra_pairs = {(items[x.producer].unit, items[x.consumer].unit) for x in intra
                   if x.kind == FLAG}
    for modulus in (2, 3, 4):
        for rotate_back, rotate_intra in ((False, False), (True, False), (True, True)):
            const = {} if rotate_back else {
                pair: sorted(set(found)) for pair, found in back_flags.items()}
            ahead: dict = defaultdict(set)
            for pair, found in list(rotating.items()) + (
                    list(back_flags.items()) if rotate_back else []):
                ahead[pair] |= {(p, c, 1) for p, c in found}
            plan = _rotating_plan(items, limit, caps, intra, intra_pairs, back_syncs, const,
                                  ahead, modulus, rotate_intra)
            if plan is None:
                continue
            if far:
                more = _uncovered(items, plan.body, plan.presets, far, 2 * modulus + 8)
                if more:
                    for p, c, d in more:
                        ahead[(items[p].unit, items[c].unit)].add((p, c, d))
                    plan = _rotating_plan(items, limit, caps, intra, intra_pairs, back_syncs,
                                          const, ahead, modulus, rotate_intra)
                    if plan is None or _uncovered(items, plan.body, plan.presets, far,
                                                  2 * modulus + 8):
                        continue
            if unsafe_reuse(items, plan.body, plan.presets, iterations=2 * modulus + 8) is None:
                return plan
    return None


def _rotating_plan(items, limit, caps, intra, intra_pairs, back_syncs, const, ahead, modulus,
                   rotate_intra: bool = False) -> LoopFlagPlan | None:
    """Constant back-edge flags ``const``, rotating flags ``ahead`` (``(producer, consumer,
    distance)`` per pair, ``max(modulus, distance + 1)`` ids each) and the intra-iteration
    plan (``rotate_intra``: each of its ids becomes ``modulus`` ids, ``(i mod modulus)``
    picking one, so its next set need not wait for this iteration's wait); None when the
    ids do not fit without widening."""
    pairs = list(dict.fromkeys([*const, *ahead]))  # in order of first need: deterministic
    width = {key: max(modulus, key[2] + 1) for found in ahead.values() for key in found}
    room = {pair: caps.get(pair, limit) - len(const.get(pair, ()))
            - sum(width[key] for key in ahead.get(pair, ())) for pair in pairs}
    if any(room[pair] - (pair in intra_pairs) < 0 for pair in pairs):
        return None
    plan = allocate(items, intra, limit, {**caps, **room})
    if count_fallbacks(plan.ops):
        return None
    if rotate_intra:
        used: dict = defaultdict(set)
        for sync in plan.ops:
            if sync.kind in (SET, WAIT):
                used[sync.pair].add(sync.event)
        for pair, ids in used.items():
            if len(ids) * modulus > room.get(pair, caps.get(pair, limit)):
                return None
            blocks = {e: k * modulus for k, e in enumerate(sorted(ids))}
            for sync in plan.ops:
                if sync.kind in (SET, WAIT) and sync.pair == pair:
                    sync.event, sync.modulus = blocks[sync.event], modulus
    body = plan.ops + list(back_syncs)
    presets, drains = [], []
    peaks = dict(plan.peak_events)
    for pair in pairs:
        top = caps.get(pair, limit)
        for index, (producer, consumer) in enumerate(const.get(pair, ())):
            event = top - 1 - index
            body.append(SyncOp(producer + 1, SET, *pair, event, order=15 + index / 64))
            body.append(SyncOp(consumer, WAIT, *pair, event, order=20 + index / 64))
            presets.append(SyncOp(0, SET, *pair, event))
            drains.append(SyncOp(0, WAIT, *pair, event))
        base = top - len(const.get(pair, ()))
        for index, key in enumerate(sorted(ahead.get(pair, ()))):
            producer, consumer, distance = key
            base -= width[key]
            rotate = {"modulus": width[key]}
            order = index / 64 + (0.5 if producer < consumer else 0)
            body.append(SyncOp(producer + 1, SET, *pair, base, order=15 + order, **rotate))
            body.append(SyncOp(consumer, WAIT, *pair, base, order=20 + order,
                               shift=-distance, **rotate))
            for back in range(distance, 0, -1):  # the ids of iterations -d .. -1
                presets.append(SyncOp(0, SET, *pair, base, shift=-back, **rotate))
                drains.append(SyncOp(0, WAIT, *pair, base, shift=-back, **rotate))
        key = f"{pair[0]}->{pair[1]}"
        peaks[key] = peaks.get(key, 0) + caps.get(pair, limit) - room[pair]
    body.sort(key=lambda s: (s.position, s.order))
    return LoopFlagPlan(body, presets, drains, peaks)


def _uncovered(items, body, presets, far, iterations) -> list[tuple[int, int, int]]:
    """The carried dependences ``(producer, consumer, distance)`` of ``far`` whose consumer
    does not know its producer ``distance`` iterations earlier, replaying ``iterations``
    iterations of the plan with static clocks."""
    clocks = StaticClocks()
    seen: dict[tuple[int, int], int] = {}  # (iteration, item) -> its unit's count
    sets: dict[tuple, list[dict[str, int]]] = defaultdict(list)
    by_consumer = defaultdict(list)
    for p, c, d in far:
        by_consumer[c].append((p, d))
    missing = set()
    for iteration, event in _events(items, body, presets, iterations):
        if isinstance(event, tuple):
            position, item = event
            for p, d in by_consumer.get(position, ()):
                earlier = seen.get((iteration - d, p))
                if earlier is not None and not clocks.knows(item.unit, items[p].unit, earlier):
                    missing.add((p, position, d))
            if item.unit is not None:
                seen[(iteration, position)] = clocks.tick(item.unit, item.inline)[item.unit]
        elif event.kind == SET:
            sets[(event.src, event.dst, event.event_at(max(iteration, 0)))].append(
                clocks.tick(event.src))
        elif event.kind == WAIT:
            key = (event.src, event.dst, event.event_at(iteration))
            if sets[key]:
                clocks.receive(event.dst, sets[key].pop(0))
            clocks.tick(event.dst)
        elif event.kind == BARRIER_ALL:
            clocks.barrier_all()
    return sorted(missing)


def _events(items, body, presets, iterations):
    """Presets, then ``iterations`` iterations of the body: ``(iteration, sync op)`` and
    ``(iteration, (position, item))``."""
    by_position: dict[int, list[SyncOp]] = defaultdict(list)
    for sync in body:
        by_position[sync.position].append(sync)
    events: list = [(-1, s) for s in presets]
    for iteration in range(iterations):
        for position in range(len(items) + 1):
            events.extend((iteration, s) for s in sorted(by_position.get(position, []),
                                                        key=lambda s: s.order))
            if position < len(items):
                events.append((iteration, (position, items[position])))
    return events


def _widen(found: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """One flag fewer: the two back-edge flags whose waits are closest become one (the
    later producer's set, the earlier consumer's wait: it orders both dependences)."""
    by_wait = sorted(found, key=lambda f: (f[1], f[0]))
    gaps = [by_wait[k + 1][1] - by_wait[k][1] for k in range(len(by_wait) - 1)]
    k = gaps.index(min(gaps))
    merged = (max(by_wait[k][0], by_wait[k + 1][0]), by_wait[k][1])
    return sorted(by_wait[:k] + [merged] + by_wait[k + 2:])


def _one_flag_per_pair(items, deps, carried, limit, pipelined) -> LoopFlagPlan:
    """The previous plan: one back-edge flag per unit pair (latest producer, first consumer)."""
    back = [(p, c) for p, c, _ in carried if p >= c]
    forward = list(deps) + [(p, c) for p, c, _ in carried if p < c]
    back_flags, back_syncs = _back_edges(items, back, pipelined)
    if back_flags and limit < 2:
        return _serialized(items, forward, limit, pipelined)
    reserved = {pair: limit - 1 for pair in back_flags}  # one id of the pair for its back edge
    plan = plan_flags(items, forward, limit, pipelined, reserved=reserved)
    body = plan.ops + back_syncs
    presets, drains = [], []
    for pair, (producer, consumer) in back_flags.items():
        event = reserved[pair]
        body.append(SyncOp(producer + 1, SET, pair[0], pair[1], event, order=30))
        body.append(SyncOp(consumer, WAIT, pair[0], pair[1], event, order=20))
        presets.append(SyncOp(0, SET, pair[0], pair[1], event))
        drains.append(SyncOp(0, WAIT, pair[0], pair[1], event))
    body.sort(key=lambda s: (s.position, s.order))
    peaks = dict(plan.peak_events)
    for src, dst in back_flags:
        key = f"{src}->{dst}"
        peaks[key] = peaks.get(key, 0) + 1
    if not reuse_is_safe(items, body, presets):
        return _serialized(items, forward, limit, pipelined)
    return LoopFlagPlan(body, presets, drains, peaks)


def _back_edges(items, back, pipelined):
    """Back-edge flags per unit pair: (latest producer, earliest consumer); other syncs."""
    flags: dict[tuple[str, str], tuple[int, int]] = {}
    syncs: list[SyncOp] = []
    for producer, consumer in back:
        src, dst = items[producer], items[consumer]
        if src.unit is None or dst.unit is None or src.inline:
            continue  # issue order covers an inline producer
        if dst.inline:
            syncs.append(SyncOp(consumer, BARRIER_ALL, order=50))
        elif src.unit == dst.unit:
            if src.unit in pipelined:
                syncs.append(SyncOp(consumer, PIPE_BARRIER, src.unit, src.unit, order=60))
        else:
            pair = (src.unit, dst.unit)
            old = flags.get(pair, (producer, consumer))
            flags[pair] = (max(old[0], producer), min(old[1], consumer))
    unique = {(s.position, s.kind, s.src): s for s in syncs}
    return flags, list(unique.values())


def _serialized(items, forward, limit, pipelined, caps=None) -> LoopFlagPlan:
    plan = plan_flags(items, forward, limit, pipelined, reserved=caps)
    body = plan.ops + [SyncOp(len(items), BARRIER_ALL, order=99)]
    return LoopFlagPlan(body, [], [], plan.peak_events, serialized=True)


def reuse_is_safe(items: list[Item], body: list[SyncOp], presets: list[SyncOp]) -> bool:
    """Replay two iterations with static clocks: is every re-set of an id preceded
    (in happens-before) by the wait that consumed its previous set?"""
    return unsafe_reuse(items, body, presets) is None


def unsafe_reuse(items: list[Item], body: list[SyncOp], presets: list[SyncOp],
                 iterations: int = 2) -> tuple[int, int, int] | None:
    """The first set re-set before its previous wait happens-before it, over two replayed
    iterations: ``(consumer, producer, distance)``, the item before whose wait the previous
    wait of the id comes and the item the set follows (``distance`` 1: the wait was in the
    previous iteration); None if there is none."""
    clocks = StaticClocks()
    sets: dict[tuple, list[dict[str, int]]] = defaultdict(list)
    last_wait: dict[tuple, tuple[str, int, int, int]] = {}
    by_position: dict[int, list[SyncOp]] = defaultdict(list)
    for sync in body:
        by_position[sync.position].append(sync)
    events: list[tuple[int, SyncOp | Item]] = [(-1, s) for s in presets]
    for iteration in range(iterations):
        for position in range(len(items) + 1):
            events.extend((iteration, s) for s in sorted(by_position.get(position, []),
                                                        key=lambda s: s.order))
            if position < len(items):
                events.append((iteration, items[position]))
    for iteration, event in events:
        if isinstance(event, Item):
            if event.unit is not None:
                clocks.tick(event.unit, event.inline)
        elif event.kind == SET:
            key = (event.src, event.dst, event.event_at(max(iteration, 0)))
            if key in last_wait and not clocks.knows(event.src, *last_wait[key][:2]):
                _, _, wait_item, wait_iteration = last_wait[key]
                return wait_item, event.position - 1, iteration - wait_iteration
            sets[key].append(clocks.tick(event.src))
        elif event.kind == WAIT:
            key = (event.src, event.dst, event.event_at(iteration))
            if not sets[key] and event.modulus:
                return event.position, event.position, 0  # a rotating wait with nothing set
            if sets[key]:
                clocks.receive(event.dst, sets[key].pop(0))
            last_wait[key] = (event.dst, clocks.tick(event.dst)[event.dst], event.position,
                              iteration)
        elif event.kind == BARRIER_ALL:
            clocks.barrier_all()
    return None
