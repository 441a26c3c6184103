"""Pass infrastructure: the pass base class, the registry and MLIR-style pipelines.

Passes are xDSL ``ModulePass`` dataclasses, so pipeline strings use MLIR syntax
and xDSL's parser and typed options: ``-p "reorder-events{strategy=min-max},insert-sync"``.
Each pass also receives a :class:`PassEnv` (target, diagnostics), which plain
``ModulePass.apply`` has no place for.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, get_pass_option_infos
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from tilesched.diagnostics import Diagnostic, TileschedError
from tilesched.target.model import Target

# Pass name -> module defining it (one module per pass, DESIGN.md §1).
PASS_MODULES = {
    "verify": "tilesched.transforms.verify",
    "fuse-tiles": "tilesched.transforms.fuse_tiles",
    "modulo-schedule": "tilesched.transforms.modulo_schedule",
    "software-pipeline": "tilesched.transforms.software_pipeline",
    "reorder-events": "tilesched.transforms.reorder_events",
    "insert-sync": "tilesched.transforms.insert_sync",
    "warp-pipeline": "tilesched.transforms.warp_pipeline",
    "emit-cpp": "tilesched.transforms.emit_cpp",
}


@dataclass
class PassEnv:
    """What every pass may use besides the module: the target and a diagnostics sink."""

    target: Target
    diagnostics: list[Diagnostic] = field(default_factory=list)
    output: list[str] = field(default_factory=list)  # text a pass emits instead of IR (emit-cpp)
    remarks: dict = field(default_factory=dict)  # machine-readable facts passes report

    def warn(self, message: str, where=None) -> None:
        """A warning at ``where`` (a location or an op, whose source location is used)."""
        from xdsl.ir import Operation

        from tilesched.ir.text import location_of

        loc = location_of(where) if isinstance(where, Operation) else where
        self.diagnostics.append(Diagnostic("warning", message, loc))


@dataclass(frozen=True)
class TilePass(ModulePass):
    """Base class: subclasses set ``name`` and implement :meth:`run`."""

    name = "tile-pass"

    def run(self, module: ModuleOp, env: PassEnv) -> None:
        raise NotImplementedError

    def apply(self, ctx: Context, op: ModuleOp) -> None:  # pragma: no cover - xDSL entry point
        raise TileschedError(f"pass '{self.name}' needs a target: run it with run_pipeline()")


def available_passes() -> dict[str, type[TilePass]]:
    """Registered passes whose module exists in this build."""
    found = {}
    for name, module_name in PASS_MODULES.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        found[name] = module.PASS
    return found


def parse_pass_pipeline(text: str) -> list[TilePass]:
    """Parse ``name{key=value ...},name2`` into configured pass instances."""
    passes = available_passes()
    try:
        specs = list(parse_pipeline(text))
    except ArgSpecParseError as err:
        raise TileschedError(f"invalid pass pipeline '{text}': {_arg_spec_message(err)}") from None
    if not specs:
        raise TileschedError("empty pass pipeline; valid passes: " + ", ".join(passes))
    pipeline = []
    for spec in specs:
        if spec.name not in passes:
            raise TileschedError(f"unknown pass '{spec.name}'; valid passes: " + ", ".join(passes))
        cls = passes[spec.name]
        try:
            pipeline.append(cls.from_spec(spec))
        except (ValueError, TypeError) as err:
            options = ", ".join(f"{o.name}: {o.expected_type}" for o in get_pass_option_infos(cls))
            raise TileschedError(
                f"bad options for pass '{spec.name}': {err}; options: {options or 'none'}"
            ) from None
    return pipeline


def run_pipeline(module: ModuleOp, pipeline: list[TilePass], env: PassEnv) -> None:
    """Run each pass in order on ``module``."""
    for tile_pass in pipeline:
        tile_pass.run(module, env)


def _arg_spec_message(err: ArgSpecParseError) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[-1] if lines else "syntax error"
