"""The on-chip address plan: buffers live at the same time, or touched by more than one unit (or
by different units), never share bytes; offsets are aligned; buffers of one in-order unit whose
lifetimes do not meet share; a plan beyond the capacity is refused with the bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.emit.plan import ALIGNMENT, DoesNotFit, Request, plan

SPACES = ("UB", "L1")


@st.composite
def requests(draw) -> list[Request]:
    out = []
    for k in range(draw(st.integers(1, 12))):
        start = draw(st.integers(0, 20))
        out.append(Request(f"b{k}", draw(st.sampled_from(SPACES)), draw(st.integers(1, 5000)),
                           start, start + draw(st.integers(0, 10)),
                           draw(st.sampled_from([None, "V", "MTE1"]))))
    return out


@settings(max_examples=200)
@given(requests())
def test_live_buffers_never_share_bytes(reqs):
    offsets = plan(reqs, {})
    for i, a in enumerate(reqs):
        assert offsets[i] % ALIGNMENT == 0
        for j in range(i + 1, len(reqs)):
            b = reqs[j]
            apart_in_time = a.end < b.start or b.end < a.start
            one_unit = a.unit is not None and a.unit == b.unit
            if a.space == b.space and not (apart_in_time and one_unit):
                assert offsets[i] + a.size <= offsets[j] or offsets[j] + b.size <= offsets[i]


@settings(max_examples=100)
@given(requests())
def test_the_plan_needs_no_more_than_the_sum_and_fits_what_it_says(reqs):
    offsets = plan(reqs, {})
    for space in SPACES:
        mine = [k for k, r in enumerate(reqs) if r.space == space]
        if not mine:
            continue
        high = max(offsets[k] + reqs[k].size for k in mine)
        assert high <= sum(-(-reqs[k].size // ALIGNMENT) * ALIGNMENT for k in mine)
        assert plan(reqs, {space: high}) == offsets  # exactly enough is enough
        with pytest.raises(DoesNotFit) as info:
            plan(reqs, {space: high - 1})
        assert info.value.space == space and info.value.needed == high


def test_disjoint_lifetimes_share():
    reqs = [Request("a", "UB", 1000, 0, 3, "V"), Request("b", "UB", 1000, 4, 8, "V"),
            Request("c", "UB", 1000, 2, 5, "V")]
    offsets = plan(reqs, {"UB": 2048})
    assert offsets[0] == offsets[1] and offsets[2] not in (offsets[0],)


def test_lifetimes_on_different_units_do_not_share():
    reqs = [Request("a", "UB", 1000, 0, 3, "V"), Request("b", "UB", 1000, 4, 8, "MTE2"),
            Request("c", "UB", 1000, 9, 9, None), Request("d", "UB", 1000, 10, 12, None)]
    offsets = plan(reqs, {})
    assert len(set(offsets)) == 4
