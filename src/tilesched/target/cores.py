"""Cores of a split-core target (``ascend-a2-mix``): which core runs an op (DESIGN.md §3).

An Ascend A2/A3 AI core is one cube core (AIC: MTE2, MTE1, M, FIX) and two vector cores (AIV0,
AIV1: each MTE2, V, MTE3), each with its own scalar issuer (perf_sim/config.hpp:20 of the vendor's
cost model, ``VEC_CORES_PER_AIC = 2``). A target that declares ``[cores.NAME]`` tables runs every
unit once per core that lists it; the instance is named ``CORE.UNIT`` (``AIC.MTE2``, ``AIV0.MTE2``)
everywhere a unit is named (``pipe`` overrides, ``sync.set_flag`` src/dst, reports), and a core's
issuer is its inline unit (``AIC.S``). Cores exchange data only through global memory and order
each other only with cross-core flags (``sync.cross_set`` / ``sync.cross_wait``).

Routing (:func:`route_core`, the one definition; passes reach it through
``analysis.units.op_route``, the simulator calls it directly): an op runs on the core that owns
every local (non-global) space it touches and has the unit the target's routes give it; an op on
global memory only may run on any core that has its unit. Among several such cores the first
declared wins, unless the op says otherwise with a ``tile.core = "AIV1"`` annotation (or a
qualified ``pipe = "AIV1.V"``). Nothing here knows the IR.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

CORE_ATTRIBUTE = "tile.core"  # the op annotation that picks a core (ir/annotations.py checks it)


@dataclass(frozen=True)
class Core:
    """One core of a split-core target: its name, its issuer (the qualified name of its inline
    unit, ``AIC.S``), the target's units it has (unqualified: ``MTE2``) and the local memory
    spaces it owns (global spaces are everyone's)."""

    name: str
    issuer: str
    units: tuple[str, ...]
    spaces: tuple[str, ...]


class CoreRoutingError(ValueError):
    """No core can run an op as written (the caller adds the op's location)."""


def qualified(core: str, unit: str) -> str:
    """The name of ``unit``'s instance on ``core``: ``AIC.MTE2``."""
    return f"{core}.{unit}"


def split_unit(name: str) -> tuple[str | None, str]:
    """``(core, unit)`` of a unit instance name (``("AIC", "MTE2")``); ``(None, name)`` for a
    name without a core."""
    core, dot, unit = name.partition(".")
    return (core, unit) if dot else (None, name)


def route_core(cores: Mapping[str, Core], local_spaces: Iterable[str], unit: str,
               annotation: str | None = None) -> str:
    """The core that runs an op on (unqualified) ``unit`` touching ``local_spaces`` (the
    non-global spaces of its memref operands), given its ``tile.core`` ``annotation`` if any.

    The candidates are the cores, in declaration order, that own every one of ``local_spaces``
    and have ``unit``; the annotation must name one of them, else the first is chosen. Raises
    :class:`CoreRoutingError` when there is none (an op touching spaces of two cores, e.g. an
    L1 -> UB copy: cores exchange data through global memory) or the annotation names no
    candidate. O(cores x spaces).
    """
    spaces = sorted(set(local_spaces))
    if annotation is not None and annotation not in cores:
        raise CoreRoutingError(f"unknown core \"{annotation}\"; cores: {', '.join(cores)}")
    candidates = [c.name for c in cores.values()
                  if unit in c.units and all(s in c.spaces for s in spaces)]
    if annotation is not None:
        if annotation in candidates:
            return annotation
        core = cores[annotation]
        missing = [s for s in spaces if s not in core.spaces]
        why = (f"has no unit {unit}" if unit not in core.units
               else "does not own space " + ", ".join(f'"{s}"' for s in missing))
        raise CoreRoutingError(f"core \"{annotation}\" {why}")
    if candidates:
        return candidates[0]
    owners = [f'"{s}" ({"/".join(c.name for c in cores.values() if s in c.spaces) or "no core"})'
              for s in spaces]
    if len({tuple(c.name for c in cores.values() if s in c.spaces) for s in spaces}) > 1:
        raise CoreRoutingError("touches spaces of different cores: " + ", ".join(owners)
                               + "; cores exchange data through global memory")
    raise CoreRoutingError(f"no core that owns {', '.join(owners) or 'no local space'} "
                           f"has unit {unit}")
