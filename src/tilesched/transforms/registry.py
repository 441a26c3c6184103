"""The passes ``tilesched opt -p`` knows, and MLIR-style pipeline strings.

``-p "reorder-events{strategy=min-max},insert-sync"`` is parsed by xDSL's pipeline parser into
configured :class:`~tilesched.transforms.pass_base.TilePass` instances; option values are checked
against the domains the passes declare (``transforms/pass_base.option``). A pass listed here
whose module is missing is an installation error and fails loudly.

:func:`default_passes` is the pipeline tilesched runs when nothing else is asked (``tilesched
demo`` shows it, ``tilesched tune`` starts from it): every pass of the target's family whose role
is ``required`` or ``default``, in registry order, with default options.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from tilesched.diagnostics import TileschedError
from tilesched.target.model import Target
from tilesched.transforms.pass_base import TileContext, TilePass, describe_option, option_specs

# Pass name -> module defining it (one module or package per pass, DESIGN.md §1), in the order of
# the pass pipeline (DESIGN.md §1).
PASS_MODULES = {
    "verify": "tilesched.transforms.verify",
    "fuse-tiles": "tilesched.transforms.fuse_tiles",
    "modulo-schedule": "tilesched.transforms.modulo_schedule",
    "software-pipeline": "tilesched.transforms.software_pipeline",
    "reorder-events": "tilesched.transforms.reorder_events",
    "warp-pipeline": "tilesched.transforms.warp_pipeline",
    "insert-sync": "tilesched.transforms.insert_sync",
    "emit-cpp": "tilesched.transforms.emit_cpp",
}


def pass_names() -> list[str]:
    """The registered pass names, in pipeline order, without importing any pass (help texts,
    listings)."""
    return list(PASS_MODULES)


def pass_class(name: str) -> type[TilePass]:
    """The class of registered pass ``name``, importing its module only (a listed pass whose
    module is missing raises ``ModuleNotFoundError``)."""
    return importlib.import_module(PASS_MODULES[name]).PASS


def available_passes() -> dict[str, type[TilePass]]:
    """Pass name -> pass class, for every registered pass."""
    return {name: pass_class(name) for name in PASS_MODULES}


def parse_pass_pipeline(text: str) -> list[TilePass]:
    """Parse ``name{key=value ...},name2`` into configured pass instances (errors exit 2).
    Only the modules of the passes named are imported."""
    passes = pass_names()
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
        cls = pass_class(spec.name)
        try:
            pipeline.append(cls.from_spec(spec))
        except (ValueError, TypeError) as err:
            raise TileschedError(f"bad options for pass '{spec.name}': {_first_line(err)}; "
                                 f"options: {describe_options(cls)}") from None
    return pipeline


def default_passes(target: Target, facts: frozenset[str] | None = None) -> list[TilePass]:
    """The default pipeline for ``target``: passes whose role is ``required`` or ``default`` and
    that apply to the target, in registry order, with default options. Given the IR names of a
    program (``pass_base.program_facts``), passes that would find nothing to act on are left out."""
    chosen, known = [], facts
    for cls in available_passes().values():
        if cls.role not in ("required", "default") or not cls.applies_to(target):
            continue
        if known is not None:
            if not cls.acts_on(known) and cls.role != "required":
                continue
            known = known | cls.provides
        chosen.append(cls())
    return chosen


def format_pipeline(passes: list[TilePass]) -> str:
    """The pipeline string of configured passes (options that differ from their defaults only);
    :func:`parse_pass_pipeline` reads it back to equal passes."""
    return ",".join(_format_pass(p) for p in passes)


def _format_pass(configured: TilePass) -> str:
    changed = [f"{f.name}" if getattr(configured, f.name) is None
               else f"{f.name}={_format_value(getattr(configured, f.name))}"
               for f in dataclasses.fields(configured)
               if getattr(configured, f.name) != f.default]
    return configured.name + ("{" + " ".join(changed) + "}" if changed else "")


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and (not _BARE.fullmatch(value) or value in ("true", "false", "none")):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def run_pipeline(module: ModuleOp, pipeline: list[TilePass], ctx: TileContext) -> None:
    """Apply the passes in order to ``module`` (an xDSL :class:`PassPipeline`)."""
    PassPipeline(tuple(pipeline)).apply(ctx, module)


def describe_options(cls: type[TilePass]) -> str:
    """One line: each option with its default and domain, or 'none'."""
    return ", ".join(describe_option(cls, name) for name in option_specs(cls)) or "none"


def _first_line(err: Exception) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[0] if lines else type(err).__name__


def _arg_spec_message(err: ArgSpecParseError) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[-1] if lines else "syntax error"
