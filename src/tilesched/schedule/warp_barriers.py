"""Which warp-pipeline cluster barriers must be ``local`` (no IR): the phase-shift model and
an exact minimum placement, beside the anchor's rule it is measured against.

**Model.** A warp pipeline runs stages ``0..n-1`` (a loop repeats them; a flat pipeline runs them
once). Number the stage *instances* in program order by position ``0, 1, 2, ...`` and the
barriers by the position they precede: barrier ``k`` sits between positions ``k-1`` and ``k``.
Its *slot* is the IR barrier it executes: ``k mod n`` in a loop (slot 0 is the wrap-around
barrier at the end of the body), ``k`` in a flat pipeline (slot ``n``, after the last stage, is
a barrier that exists only if needed). Both issuer groups execute every barrier; the prelude's
``cond_barrier`` makes the high group one barrier behind, so the low group runs position ``p``
while the high group runs position ``p - 1``. Consequently, for an access ``X`` at position ``p``
that program order puts before a conflicting access ``Y`` at position ``q >= p``:

- same group: ``X`` is ordered before ``Y`` by any barrier ``k`` in ``p+1 .. q`` — needed only
  when ``X`` is asynchronous (an LDS op, complete at the group's next *local* barrier);
- low ``X``, high ``Y``: a barrier the low group passes after ``X`` and before the high group
  reaches ``Y``: ``k`` in ``p+1 .. q+1``;
- high ``X``, low ``Y``: the high group runs ``X`` one phase later, so ``k`` in ``p+1 .. q-1``;
  empty when ``q <= p + 1``: adjacent stages (and one stage) that conflict across the groups
  cannot be ordered at all.

Every slot holds a barrier, so a requirement on a synchronous ``X`` only needs its span to be
non-empty; an asynchronous ``X`` needs a *local* barrier in the span. Spans grow with the
distance, so per access pair only the smallest conflicting distance matters.

**Placement.** Choosing the fewest local slots that hit every span is a minimum hitting set of
intervals (flat) or circular arcs (loops). Intervals: the greedy choice of the right end of the
interval that ends first is optimal. Arcs: some chosen slot lies in the shortest arc; trying each
of its slots, the rest is an interval problem on the cut circle, solved greedily — exact in
``O(L * m log m)`` for ``m`` arcs, ``L`` the shortest arc's length (Hsu and Tsai, *Linear time
algorithms on circular-arc graphs*, IPL 1991, for the classic setting). :func:`anchor_placement`
is Triton's ``analyzePipelineDependencies`` rule (distance 1 at slot ``dst``, distance ``d > 1``
at slot ``dst - 1``, skip pairs already covered), swept over every distance, not only up to ``n``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Requirement:
    """A barrier at some position ``first .. last`` (inclusive) must be local (``local``) or
    merely exist. ``src`` / ``distance`` say where it comes from (stage of ``X``, ``q - p``);
    ``tag`` is the caller's (for messages)."""

    first: int
    last: int
    src: int
    distance: int
    local: bool = True
    tag: object = field(default=None, compare=False)

    @property
    def feasible(self) -> bool:
        return self.first <= self.last


def requirement(src: int, distance: int, groups: tuple[int, int] | None, local: bool,
                tag: object = None) -> Requirement:
    """The span of barrier positions that orders ``X`` (at position ``src``) before ``Y`` at
    ``src + distance`` when group ``groups[0]`` runs ``X`` and ``groups[1]`` runs ``Y`` (0: low,
    1: high; None: each group with itself)."""
    q = src + distance
    last = q if groups is None or groups[0] == groups[1] else (q + 1 if groups[0] == 0 else q - 1)
    return Requirement(src + 1, last, src, distance, local, tag)


def slots_of(req: Requirement, n: int, circular: bool) -> list[int]:
    """The slots a requirement's positions map to (each once)."""
    if not circular:
        return list(range(req.first, req.last + 1))
    length = min(req.last - req.first + 1, n)
    return [(req.first + k) % n for k in range(length)]


def is_met(req: Requirement, n: int, circular: bool, local: set[int]) -> bool:
    """Does the set of local slots satisfy ``req``? (Synchronous requirements only need a
    non-empty span: every slot holds a barrier.)"""
    if not req.feasible:
        return False
    if not req.local:
        return True
    return any(s in local for s in slots_of(req, n, circular))


def unmet(reqs: list[Requirement], n: int, circular: bool, local: set[int]) -> list[Requirement]:
    """The requirements ``local`` leaves unsatisfied."""
    return [r for r in reqs if not is_met(r, n, circular, local)]


def minimum_placement(reqs: list[Requirement], n: int, circular: bool,
                      fixed: frozenset[int] = frozenset()) -> set[int]:
    """The fewest local slots (beyond ``fixed``, which are local already) meeting every feasible
    local requirement. Flat pipelines prefer slots below ``n`` (upgrading an existing cluster
    barrier) to the extra barrier after the last stage, at no cost in count."""
    todo = [r for r in reqs if r.local and r.feasible and not is_met(r, n, circular, set(fixed))]
    if not todo:
        return set()
    if not circular:
        return _stab_flat(todo, n)
    arcs = _minimal_arcs({(r.first % n, min(r.last - r.first + 1, n)) for r in todo}, n)
    start, length = min(arcs, key=lambda a: a[1])
    best: set[int] | None = None
    for k in range(length):
        cut = (start + k) % n
        rest = [((s - cut) % n, (s - cut) % n + ln - 1) for s, ln in arcs
                if (cut - s) % n >= ln]  # arcs not containing the cut slot, as intervals
        chosen = {cut} | {(x + cut) % n for x in _stab_intervals(rest)}
        if best is None or len(chosen) < len(best):
            best = chosen
    return best


def _minimal_arcs(arcs: set[tuple[int, int]], n: int) -> list[tuple[int, int]]:
    """The arcs ``(start, length)`` that contain no other arc (a slot in the inner one hits the
    outer one too, so only the inner ones constrain the choice)."""
    ordered = sorted(arcs, key=lambda a: a[1])
    kept: list[tuple[int, int]] = []
    for start, length in ordered:
        if not any((s - start) % n + ln <= length for s, ln in kept):
            kept.append((start, length))
    return kept


def _stab_flat(reqs: list[Requirement], n: int) -> set[int]:
    """Flat pipelines: slot ``n`` (an extra barrier after the last stage) only when a span holds
    nothing else; then it also serves every span that reaches it. Any other span reaching ``n``
    is served as well by slot ``n - 1``, so it is cut there."""
    forced = {n} if any(r.first >= n for r in reqs) else set()
    rest = {(r.first, min(r.last, n - 1)) for r in reqs if not (forced and r.last >= n)}
    return forced | _stab_intervals(list(rest))


def _stab_intervals(intervals: list[tuple[int, int]]) -> set[int]:
    """Fewest points hitting every interval: the right end of the first-ending unhit one."""
    points: set[int] = set()
    last = None
    for lo, hi in sorted(intervals, key=lambda iv: iv[1]):
        if last is None or last < lo:
            last = hi
            points.add(hi)
    return points


def anchor_placement(reqs: list[Requirement], n: int, circular: bool,
                     fixed: frozenset[int] = frozenset()) -> set[int]:
    """Triton's rule: by increasing distance, then source stage, a requirement not yet covered
    gets slot ``dst`` (distance 1), ``dst - 1`` (distance > 1), or ``src + 1`` (one stage)."""
    local = set(fixed)
    for req in sorted((r for r in reqs if r.local and r.feasible),
                      key=lambda r: (r.distance, r.src, r.first, r.last)):
        dst = req.src + req.distance
        at = dst if req.distance == 1 else (req.src + 1 if req.distance == 0 else dst - 1)
        covered = Requirement(req.first, at, req.src, req.distance)
        if is_met(covered, n, circular, local):
            continue
        local.add(at % n if circular else at)
    return local - set(fixed)
