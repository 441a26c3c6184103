"""Event-aware reordering of one block (``reorder-events``), without the IR.

The graph type is :class:`.segment.Segment`: a block's children in program order with their unit,
duration and kind (free, inline, control, boundary), memory dependences (which decide the flags
insert-sync will place) and order-only edges. It differs from the modulo graph because the cost
of an order here is decided by flag planning (:mod:`tilesched.schedule.flags`), not by a
reservation table.
"""
