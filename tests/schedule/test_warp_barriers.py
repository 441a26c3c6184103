"""The phase-shift model's spans and the local-barrier placements (no IR): the minimum placement
is exactly minimal (checked against every subset of slots) and never uses more slots than the
anchor's rule; both meet every feasible requirement."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.schedule.warp_barriers import (
    Requirement,
    anchor_placement,
    is_met,
    minimum_placement,
    requirement,
    slots_of,
    unmet,
)


@pytest.mark.parametrize(("groups", "span"), [(None, (3, 4)), ((0, 1), (3, 5)), ((1, 0), (3, 3))])
def test_spans_per_pair_of_groups(groups, span):
    # X at position 2, Y two stages later: same group k in 3..4, low->high 3..5, high->low 3..3
    req = requirement(2, 2, groups, local=True)
    assert (req.first, req.last) == span


def test_adjacent_stages_across_groups_cannot_be_ordered():
    assert not requirement(0, 1, (1, 0), local=True).feasible
    assert not requirement(4, 0, None, local=True).feasible  # same stage, same group, async
    assert requirement(4, 0, (0, 1), local=True).feasible  # only the barrier right after


def test_circular_slots_wrap_and_saturate():
    assert slots_of(Requirement(3, 5, 2, 3), 4, circular=True) == [3, 0, 1]
    assert sorted(slots_of(Requirement(1, 9, 0, 9), 4, circular=True)) == [0, 1, 2, 3]


def test_synchronous_requirements_need_no_local_barrier():
    assert is_met(Requirement(1, 2, 0, 3, local=False), 4, True, set())
    assert not is_met(Requirement(2, 1, 0, 2, local=False), 4, True, set())


def test_eight_stage_anchor_case():
    # reads of one buffer at stages 0, 2, 4 and its write at stage 6, in an 8-stage loop
    reqs = [requirement(s, 6 - s, (1, 0), True) for s in (0, 2, 4)]
    reqs += [requirement(6, 8 + s - 6, (1, 0), True) for s in (0, 2, 4)]
    assert minimum_placement(reqs, 8, circular=True) == {5, 7}
    assert anchor_placement(reqs, 8, circular=True) == {5, 7}


def test_existing_local_barriers_are_reused():
    reqs = [requirement(0, 3, (1, 0), True)]  # slots 1..2
    assert minimum_placement(reqs, 4, circular=True, fixed=frozenset({1})) == set()


def test_flat_prefers_upgrading_a_cluster_barrier_to_the_extra_one_after_the_last_stage():
    reqs = [requirement(1, 2, (0, 1), True)]  # positions 2..4 of a 4-stage flat pipeline
    assert minimum_placement(reqs, 4, circular=False) == {3}
    assert minimum_placement([requirement(3, 0, (0, 1), True)], 4, circular=False) == {4}


@st.composite
def requirement_sets(draw):
    n = draw(st.integers(1, 7))
    circular = draw(st.booleans())
    reqs = []
    for _ in range(draw(st.integers(0, 8))):
        src = draw(st.integers(0, n - 1))
        if circular:
            distance = draw(st.integers(0, 3 * n))
        else:
            distance = draw(st.integers(0, n - 1 - src))
        groups = draw(st.sampled_from([None, (0, 1), (1, 0)]))
        reqs.append(requirement(src, distance, groups, draw(st.booleans())))
    return n, circular, [r for r in reqs if r.feasible]


def _brute_force_minimum(reqs, n, circular) -> int:
    slots = range(n) if circular else range(1, n + 1)
    for size in range(len(slots) + 1):
        for subset in itertools.combinations(slots, size):
            if not unmet(reqs, n, circular, set(subset)):
                return size
    raise AssertionError("the full set meets every feasible requirement")


@settings(max_examples=300, deadline=None)
@given(requirement_sets())
def test_minimum_is_exact_and_never_more_than_the_anchor(case):
    n, circular, reqs = case
    best = minimum_placement(reqs, n, circular)
    anchor = anchor_placement(reqs, n, circular)
    assert not unmet(reqs, n, circular, best)
    assert not unmet(reqs, n, circular, anchor)
    assert len(best) == _brute_force_minimum(reqs, n, circular)
    assert len(best) <= len(anchor)


def test_minimum_beats_the_anchor_when_a_consumer_waits_a_whole_iteration():
    # two stages, each consuming in its next iteration what its own LDS copy produced (same
    # group, distance 2): one local barrier anywhere serves both; the anchor's rule never looks
    # at slot dst for distance > 1 and places two
    reqs = [requirement(0, 2, None, True), requirement(1, 2, None, True)]
    assert len(minimum_placement(reqs, 2, circular=True)) == 1
    assert anchor_placement(reqs, 2, circular=True) == {0, 1}
