"""Machine models as data (DESIGN.md §3): load with :func:`load_target`."""

from tilesched.target.loader import builtin_target_names, load_target, parse_target
from tilesched.target.model import OperandShape, Route, Space, Target, Unit

__all__ = ["OperandShape", "Route", "Space", "Target", "Unit", "builtin_target_names",
           "load_target", "parse_target"]
