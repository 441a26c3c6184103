"""Modulo scheduling (Rau's iterative modulo scheduling with placement arms; exact CP-SAT minimum II).

The graph type is :class:`.graph.ScheduleGraph` (nodes with resource footprints and latencies,
edges with delay and iteration distance): the one type that both the HatScheT benchmark graphs
(:mod:`.hatschet`) and ``modulo-schedule``'s tile loops translate into. The exact mode
(:mod:`.exact`, OR-Tools) is imported on demand.
"""

from tilesched.schedule.modulo.graph import GraphError, ScheduleGraph
from tilesched.schedule.modulo.scheduler import ModuloResult, modulo_schedule
from tilesched.schedule.modulo.validate import check_modulo_schedule

__all__ = [
    "GraphError",
    "ModuloResult",
    "ScheduleGraph",
    "check_modulo_schedule",
    "modulo_schedule",
]
