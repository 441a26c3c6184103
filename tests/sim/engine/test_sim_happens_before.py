"""The race detector on its own: epochs, vector clocks, scanning, dedupe and pruning."""

from __future__ import annotations

from tilesched.sim.engine import happens_before as hb
from tilesched.sim.engine.happens_before import RaceDetector, join, with_epoch
from tilesched.sim.result import RaceSide

R0 = ((0, 4), (0, 4))
R1 = ((4, 8), (0, 4))
R01 = ((2, 6), (0, 4))


def _detector(views=None) -> RaceDetector:
    return RaceDetector(lambda op, agent: RaceSide(f"op{op}", f"f:{op}:1", f"u{agent}"),
                        lambda buf: f"b{buf}", views)


def _acc(region, write, loc="x", buf=0):
    return (buf, region, write, (region, loc))


def test_join_and_epoch():
    assert join((1, 5, 0), (2, 3, 0)) == (2, 5, 0)
    vc = (1, 2, 3)
    assert join(vc, None) is vc
    assert with_epoch(vc, 1, 9) == (1, 9, 3)


def test_unordered_write_write_races_and_ordered_does_not():
    det = _detector()
    det.access(0, (0, 0), 1, 10, [_acc(R0, True, "a")])
    det.access(1, (1, 0), 1, 11, [_acc(R0, True, "b")])  # saw agent 0's epoch 1: ordered
    assert det.races() == []
    det.access(1, (1, 0), 2, 12, [_acc(R0, True, "c")])
    det.access(0, (0, 0), 2, 13, [_acc(R0, True, "d")])  # has seen neither of agent 1's writes
    assert {(r.first.op, r.second.op, r.count) for r in det.races()} == {
        ("op11", "op13", 1), ("op12", "op13", 1)}


def test_reads_do_not_race_with_reads_and_disjoint_regions_never_race():
    det = _detector()
    det.access(0, (0, 0), 1, 1, [_acc(R0, False, "a")])
    det.access(1, (0, 0), 1, 2, [_acc(R0, False, "b"), _acc(R1, True, "c")])
    assert det.races() == []
    det.access(0, (0, 0), 2, 3, [_acc(R01, True, "d")])  # overlaps both of agent 1's accesses
    assert {(r.first.op, r.second.op) for r in det.races()} == {("op2", "op3")}


def test_each_pair_of_locations_is_reported_once_counting_distinct_region_pairs():
    det = _detector()
    for k in range(5):
        det.access(0, (0, 0), k + 1, 1, [_acc(R0 if k % 2 else R1, True, "a")])
        det.access(1, (0, 0), k + 1, 2, [_acc(R0, False, "b"), _acc(R01, False, "b")])
    (race,) = det.races()
    # a's regions R0, R1 against b's R0, R01: every overlapping pair but (R1, R0) races
    assert race.count == 3


def _replay(order: list[int]) -> list[tuple]:
    """Three agents' accesses, fed in the given order (each a linear extension of happens-before:
    agent 2 saw agent 0's first op only); the races as reported."""
    det = _detector()
    ops = {
        0: (0, (1, 0, 0), 1, 1, [_acc(R0, True, "a")]),
        1: (0, (2, 0, 0), 2, 1, [_acc(R0, True, "a")]),
        2: (0, (3, 0, 0), 3, 3, [_acc(R1, True, "c")]),
        3: (1, (0, 1, 0), 1, 2, [_acc(R01, False, "b")]),
        4: (1, (0, 2, 0), 2, 2, [_acc(R01, False, "b")]),
        5: (2, (1, 0, 1), 1, 4, [_acc(R0, False, "d"), _acc(R1, False, "d")]),
    }
    for index in order:
        det.access(*ops[index])
    return [(r.buffer, r.first.loc, r.second.loc, r.first.unit, r.second.unit, r.count)
            for r in det.races()]


def test_races_do_not_depend_on_the_processing_order():
    """Whether a's second write is processed before or after b's reads (or d's), the same races
    with the same counts and sides are reported."""
    orders = [[0, 1, 2, 3, 4, 5], [3, 4, 0, 1, 2, 5], [0, 3, 1, 4, 5, 2], [0, 5, 3, 1, 4, 2],
              [3, 0, 5, 4, 1, 2]]
    results = [_replay(order) for order in orders]
    assert all(r == results[0] for r in results)
    assert results[0] == [("b0", "f:1:1", "f:2:1", "u0", "u1", 1),
                          ("b0", "f:1:1", "f:4:1", "u0", "u2", 1),
                          ("b0", "f:2:1", "f:3:1", "u1", "u0", 1),
                          ("b0", "f:3:1", "f:4:1", "u0", "u2", 1)]


def test_history_keeps_one_entry_per_region_and_location():
    det = _detector()
    for k in range(100):
        det.access(0, (0, 0), k + 1, 7, [_acc(R0 if k % 2 else R1, True, "loop")])
    writes = det.history[0][0][1]
    assert len(writes) == 2
    assert det.history[0][0][0] == 100


def test_pruning_drops_entries_every_live_agent_has_seen(monkeypatch):
    monkeypatch.setattr(hb, "PRUNE_EVERY", 4)
    det = _detector(lambda: [50, 50])
    det.next_prune = 4
    for k in range(4):
        det.access(0, (0, 0), k + 1, k, [_acc(((k, k + 1), (0, 4)), True, f"l{k}")])
    assert det.history[0][0][1] == {}  # epochs 1..4 <= 50


def test_scan_stops_at_the_first_ordered_entry():
    det = _detector()
    for k in range(3):
        det.access(0, (0, 0), k + 1, k, [_acc(R0, True, f"w{k}")])
    det.access(1, (2, 0), 1, 9, [_acc(R0, True, "r")])  # ordered after epochs 1..2, not 3
    assert [(r.first.loc, r.second.loc) for r in det.races()] == [("f:2:1", "f:9:1")]
