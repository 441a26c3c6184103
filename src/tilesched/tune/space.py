"""The search space of ``tilesched tune``, read from the passes' own declarations.

Nothing here names a pass. For a program and a target, the space is every registered pass (in
registry order, the pipeline order) that

- applies to the target (:meth:`TilePass.applies_to`: its sync family) and is not a ``tool``;
- may be switched off unless its role is ``required`` ("pass off" is a choice like any other);
- searches each option declared with ``tune=(...)`` over those values plus the default.

A *choice* assigns on/off to every switchable pass and a value to every knob. Its *candidate*
is the list of configured passes it runs: passes switched off, and passes that need an IR name
(:attr:`TilePass.needs`) that neither the input nor an earlier pass provides, are dropped
(software-pipeline without stage annotations has nothing to do). Distinct choices may give the
same candidate; a candidate is identified by its pipeline string (what ``tilesched opt -p``
takes), and :meth:`SearchSpace.candidates` lists each once.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass
from typing import Any

from tilesched.target.model import Target
from tilesched.transforms.pass_base import TilePass, option_specs
from tilesched.transforms.registry import available_passes, default_passes, format_pipeline

GRID_LIMIT = 100_000  # choices enumerated at most (``--sampler grid``, space size)


@dataclass(frozen=True)
class PassDimension:
    """One pass of the space: can it be switched off, and its knobs (option -> values, the
    default first)."""

    cls: type[TilePass]
    switchable: bool
    default_on: bool
    knobs: tuple[tuple[str, tuple[Any, ...]], ...]

    @property
    def name(self) -> str:
        return self.cls.name


@dataclass(frozen=True)
class Candidate:
    """A configured pipeline: its passes and the options searched for each."""

    passes: tuple[TilePass, ...]

    @property
    def pipeline(self) -> str:
        return format_pipeline(list(self.passes))

    def options(self, space: SearchSpace) -> dict[str, dict[str, Any]]:
        """Pass name -> searched option -> value, for the passes that run."""
        knobs = {d.name: d.knobs for d in space.dimensions}
        return {p.name: {name: getattr(p, name) for name, _ in knobs.get(p.name, ())}
                for p in self.passes}


class SearchSpace:
    """The pipelines ``tune`` may try for one program (given by its IR names) on one target."""

    def __init__(self, target: Target, facts: frozenset[str]):
        self.target = target
        self.facts = facts
        self.dimensions = tuple(_dimension(cls) for cls in available_passes().values()
                                if cls.role != "tool" and cls.applies_to(target))
        self._all: dict[str, Candidate] | None = None

    # -- choices -> candidates ------------------------------------------------------------
    def candidate(self, choice: dict[str, Any]) -> Candidate:
        """The candidate a choice runs. ``choice`` maps a switchable pass's name to on/off and
        ``"pass.option"`` to a value; missing entries take the defaults."""
        known, passes = self.facts, []
        for dim in self.dimensions:
            if dim.switchable and not (choice.get(dim.name, dim.default_on)
                                       and dim.cls.acts_on(known)):
                continue
            values = {name: choice.get(f"{dim.name}.{name}", vals[0]) for name, vals in dim.knobs}
            passes.append(dim.cls(**values))
            known = known | dim.cls.provides
        return Candidate(tuple(passes))

    def baseline(self) -> Candidate:
        """The registry's default pipeline for this target and program."""
        return Candidate(tuple(default_passes(self.target, self.facts)))

    def baseline_choice(self) -> dict[str, Any]:
        """The choice that gives :meth:`baseline`, with every parameter named."""
        choice: dict[str, Any] = {}
        for dim in self.dimensions:
            if dim.switchable:
                choice[dim.name] = dim.default_on
            for name, values in dim.knobs:
                choice[f"{dim.name}.{name}"] = values[0]
        return choice

    def parameters(self) -> dict[str, tuple[Any, ...]]:
        """Every parameter of a choice with its values (on/off first as the default has it)."""
        params: dict[str, tuple[Any, ...]] = {}
        for dim in self.dimensions:
            if dim.switchable:
                params[dim.name] = (dim.default_on, not dim.default_on)
            for name, values in dim.knobs:
                params[f"{dim.name}.{name}"] = values
        return params

    def size_bound(self) -> int:
        """The number of choices (an upper bound on distinct candidates)."""
        total = 1
        for values in self.parameters().values():
            total *= len(values)
        return total

    def candidates(self) -> list[Candidate]:
        """Every distinct candidate, in a fixed order (the baseline first)."""
        return list(self._enumerated().values())

    def candidate_of(self, pipeline: str) -> Candidate:
        """The enumerated candidate whose pipeline string is ``pipeline``."""
        return self._enumerated()[pipeline]

    def _enumerated(self) -> dict[str, Candidate]:
        if self._all is None:
            if self.size_bound() > GRID_LIMIT:
                raise ValueError(f"the space has {self.size_bound()} choices, more than "
                                 f"{GRID_LIMIT} to enumerate")
            params = self.parameters()
            seen = {self.baseline().pipeline: self.baseline()}
            for values in itertools.product(*params.values()):
                candidate = self.candidate(dict(zip(params, values, strict=True)))
                seen.setdefault(candidate.pipeline, candidate)
            self._all = seen
        return self._all

    # -- identity --------------------------------------------------------------------------
    def describe(self) -> list[dict[str, Any]]:
        """The space as data: pass, switchable, default on, needs/provides, knobs."""
        return [{"pass": d.name, "switchable": d.switchable, "default_on": d.default_on,
                 "needs": sorted(d.cls.needs), "provides": sorted(d.cls.provides),
                 "knobs": {name: [_plain(v) for v in values] for name, values in d.knobs}}
                for d in self.dimensions]

    def fingerprint(self, *inputs: str) -> str:
        """A hash of the space plus ``inputs`` (kernel text, target text, ...): results with the
        same fingerprint are evaluations of the same pipelines on the same program."""
        data = json.dumps({"space": self.describe(), "facts": sorted(self.facts),
                           "inputs": list(inputs)}, sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()[:16]


def _dimension(cls: type[TilePass]) -> PassDimension:
    knobs = []
    for name, spec in option_specs(cls).items():
        if spec.tune is None:
            continue
        default = getattr(cls, name)
        knobs.append((name, (default, *(v for v in spec.tune if v != default))))
    return PassDimension(cls, switchable=cls.role != "required",
                         default_on=cls.role in ("required", "default"), knobs=tuple(knobs))


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, bool | int | float | str) else str(value)
