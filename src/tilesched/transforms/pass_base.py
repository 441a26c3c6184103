"""What every tilesched pass is: an xDSL ``ModulePass`` with declared options and a target.

- :class:`TileContext` is an xDSL :class:`~xdsl.context.Context` (the dialects of tile programs
  loaded) that also carries the target machine model and collects diagnostics, remarks and text
  output. Passes are applied with it, so a list of tilesched passes runs in a plain
  ``xdsl.passes.PassPipeline``: ``PassPipeline(passes).apply(TileContext(target), module)``.
  Applied with a plain ``Context``, a pass uses the target named by the module's ``tile.target``
  string attribute (default ``ascend-a2``, as the CLI) and prints its warnings to stderr.
- :class:`TilePass` subclasses are frozen dataclasses whose fields are their options (xDSL's
  pipeline syntax, ``name{key=value ...}``). Each field is declared with :func:`option`, which
  records its valid range or choices and a help line once: construction checks them (so the
  pipeline parser, the CLI help and ``tune``'s search space all read the same declaration).
- Where a pass belongs in a pipeline is declared on its class too (read by the registry's default
  pipeline and by ``tune``'s search space): its :data:`PassRole`, the target sync ``families`` it
  acts on (:meth:`TilePass.applies_to`), and the IR names it ``needs`` (one of them must be in the
  input or ``provides``-d by an earlier pass, else it has nothing to do).
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tilesched.diagnostics import Diagnostic, Location
from tilesched.gc_pause import paused_gc  # noqa: F401  (passes import it from here)
from tilesched.ir.text import load_dialects, location_of
from tilesched.target.model import Target

DEFAULT_TARGET = "ascend-a2"
TARGET_ATTR = "tile.target"

# How a pass takes part in pipelines: "required" runs in every pipeline (without it the program is
# not correct); "default" runs in the default pipeline and may be switched off; "optional" is off
# by default and may be switched on; "tool" (verify, emit-cpp) is never part of a searched pipeline.
PassRole = Literal["required", "default", "optional", "tool"]


@dataclass(init=False)
class TileContext(Context):
    """An xDSL context with the tile dialects, the target, and what passes report."""

    target: Target | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    output: list[str] = field(default_factory=list)  # text a pass emits instead of IR (emit-cpp)
    remarks: dict = field(default_factory=dict)  # machine-readable facts passes report

    def __init__(self, target: Target | None = None) -> None:
        super().__init__()
        self.target = target
        self.diagnostics, self.output, self.remarks = [], [], {}
        load_dialects(self)

    def warn(self, message: str, where: Operation | Location | None = None) -> None:
        """A warning at ``where`` (a location, or an op whose source location is used)."""
        loc = location_of(where) if isinstance(where, Operation) else where
        self.diagnostics.append(Diagnostic("warning", message, loc))

    def remark(self, message: str, where: Operation | Location | None = None) -> None:
        """A remark (shown under ``--verbose``): what a pass decided and why."""
        loc = location_of(where) if isinstance(where, Operation) else where
        self.diagnostics.append(Diagnostic("remark", message, loc))

    def clone(self) -> TileContext:
        copy = TileContext(self.target)
        copy.allow_unregistered = self.allow_unregistered
        copy.diagnostics, copy.output = list(self.diagnostics), list(self.output)
        copy.remarks = dict(self.remarks)
        return copy


@dataclass(frozen=True)
class OptionSpec:
    """The declared domain of one pass option (read by the parser, the help text and ``tune``)."""

    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple[Any, ...] | None = None
    tune: tuple[Any, ...] | None = None  # values worth searching; None: not a tuning knob

    def check(self, name: str, value: Any) -> None:
        """Raise ``ValueError`` naming ``name`` when ``value`` is outside the domain (``None``
        means "not set" and is always allowed)."""
        if value is None:
            return
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise ValueError(f"{name} must be one of {allowed}, got {value}")
        if self.low is not None and value < self.low:
            raise ValueError(f"{name} must be >= {self.low}, got {value}")
        if self.high is not None and value > self.high:
            raise ValueError(f"{name} must be <= {self.high}, got {value}")


    def domain(self) -> str:
        """The valid values as text: ``a|b``, ``1..64``, ``>= 0`` (empty: any value)."""
        if self.choices is not None:
            return "|".join(_text(c) for c in self.choices)
        if self.low is not None and self.high is not None:
            return f"{self.low}..{self.high}"
        if self.low is not None:
            return f">= {self.low}"
        return f"<= {self.high}" if self.high is not None else ""


def _text(value: Any) -> str:
    """An option value as pipeline strings spell it (``true``, ``none``)."""
    return str(value).lower() if isinstance(value, bool) or value is None else str(value)


def describe_option(pass_class: type[ModulePass], name: str) -> str:
    """``name=default (domain)`` as pipeline strings spell it; an option unset by default shows
    its domain only (``num-stages (1..64, unset)``): ``none`` is not a value the parser reads."""
    spec = option_specs(pass_class)[name]
    domain, default = spec.domain(), getattr(pass_class, name)
    label = name.replace("_", "-")
    if default is None:
        return f"{label} ({domain + ', ' if domain else ''}unset)"
    return f"{label}={_text(default)}" + (f" ({domain})" if domain else "")


def option(default: Any, help: str, *, low: int | None = None, high: int | None = None,
           choices: tuple | None = None, tune: tuple | None = None) -> Any:
    """A pass option: a dataclass field with its default and declared domain."""
    spec = OptionSpec(help, low, high, tuple(choices) if choices else None, tune)
    return field(default=default, metadata={"option": spec})


def option_specs(pass_class: type[ModulePass]) -> dict[str, OptionSpec]:
    """Option name -> declared domain, in declaration order."""
    return {f.name: f.metadata["option"] for f in dataclasses.fields(pass_class)
            if "option" in f.metadata}


@dataclass(frozen=True)
class TilePass(ModulePass):
    """Base class: subclasses set ``name``, declare options with :func:`option` and implement
    :meth:`run`."""

    name: ClassVar[str] = "tile-pass"
    role: ClassVar[PassRole] = "default"
    families: ClassVar[frozenset[str] | None] = None  # target sync families acted on; None: all
    needs: ClassVar[frozenset[str]] = frozenset()  # IR names (ops or attributes), one must exist
    provides: ClassVar[frozenset[str]] = frozenset()  # IR names this pass writes for later ones

    @classmethod
    def applies_to(cls, target: Target) -> bool:
        """Does the pass act on programs for ``target`` (its sync family)?"""
        return cls.families is None or target.sync in cls.families

    @classmethod
    def acts_on(cls, facts: frozenset[str]) -> bool:
        """Does a program holding the IR names ``facts`` (see :func:`program_facts`) give the
        pass something to do?"""
        return not cls.needs or bool(cls.needs & facts)

    def __post_init__(self) -> None:
        for name, spec in option_specs(type(self)).items():
            spec.check(name.replace("_", "-"), getattr(self, name))

    def run(self, module: ModuleOp, ctx: TileContext) -> None:
        raise NotImplementedError

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """xDSL's entry point: run with the target of ``ctx`` (see the module docstring)."""
        if isinstance(ctx, TileContext) and ctx.target is not None:
            self.run(op, ctx)
            return
        tile_ctx = TileContext(target=_module_target(op))
        self.run(op, tile_ctx)
        for diagnostic in tile_ctx.diagnostics:
            if diagnostic.severity != "remark":
                print(diagnostic, file=sys.stderr)


def program_facts(module: Operation) -> frozenset[str]:
    """The IR names a module holds: every op name and every attribute or property name, the
    vocabulary of :attr:`TilePass.needs` / :attr:`TilePass.provides`."""
    names: set[str] = set()
    for op in module.walk():
        names.add(op.name)
        names.update(op.attributes)
        names.update(op.properties)
    return frozenset(names)


def _module_target(module: ModuleOp) -> Target:
    from tilesched.target import load_target

    named = module.attributes.get(TARGET_ATTR)
    return load_target(named.data if isinstance(named, StringAttr) else DEFAULT_TARGET)


