"""Tile fusion planning on a small graph type, no IR (``fuse-tiles``, docs/fuse-tiles.md).

- :mod:`.graph`: one barrier-free segment as nodes (fusible or not) with operand streams,
  dependences and candidate (direct dataflow) edges;
- :mod:`.cost`: the documented cost model (overheads, local-buffer traffic, live tiles), the
  same cycles the target's fused-execution model gives the simulator;
- :mod:`.search`: the cost-guided planner (beam search over merges, local improvement) and the
  plain greedy baseline;
- :mod:`.exact`: the CP-SAT exact planner for segments up to a few dozen fusible ops;
- :mod:`.spans`: orders that make groups contiguous spans, and splitting groups that cannot be.
"""
