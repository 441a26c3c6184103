"""EventPool: the one rule both planners allocate event ids with."""

from tilesched.schedule.flags import EventPool

PAIR = ("MTE2", "V")


def test_an_id_is_free_again_only_when_its_wait_is_known():
    pool = EventPool(2)
    pool.take(PAIR, 0)
    assert pool.free_id(PAIR, known=5) == 1      # 0 is pending: its wait is not placed yet
    pool.consume(PAIR, 0, count=3)                # waited for as V's third event
    pool.take(PAIR, 1)
    assert pool.free_id(PAIR, known=2) is None    # the source has seen only two V events
    assert pool.held(PAIR, known=2) == 1
    assert pool.free_id(PAIR, known=3) == 0
    assert pool.held(PAIR, known=3) == 0


def test_reserved_ids_are_skipped_and_reset_frees_every_waited_id():
    pool = EventPool(3, reserved={PAIR: 2})
    pool.take(PAIR, 0)
    pool.consume(PAIR, 0, count=9)
    pool.take(PAIR, 1)
    assert pool.free_id(PAIR, known=0) is None    # 0 held, 1 pending, 2 reserved
    pool.reset()                                  # barrier_all: 0's wait happened
    assert pool.free_id(PAIR, known=0) == 0
    assert pool.pending(PAIR) == 1                # 1 is still waiting for its wait


def test_virtual_ids_past_the_limit_are_reused_by_the_same_rule():
    pool = EventPool(1)
    for event, count in ((0, 4), (1, 2)):         # id 1 is virtual (relaxed schedulers)
        pool.take(PAIR, event)
        pool.consume(PAIR, event, count)
    assert pool.free_id(PAIR, known=2) is None
    assert pool.free_id(PAIR, known=2, virtual=True) == 1
    assert pool.free_id(PAIR, known=4, virtual=True) == 0
