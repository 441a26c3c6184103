"""Load and validate machine models from TOML (schema: ``docs/targets.md``).

``load_target(spec)`` accepts a built-in name (``ascend-a2``) or a path to a
user's TOML file. Every validation error names the file, and where it can be
found, the line of the offending key: ``my.toml:12:1: error: units.V.kind: ...``.
"""

from __future__ import annotations

import pathlib
import re
import tomllib
from typing import Any

from tilesched.diagnostics import Location, TileschedError
from tilesched.target.model import (
    SYNC_FAMILIES,
    UNIT_KINDS,
    FusionModel,
    Route,
    Space,
    Target,
    Unit,
)

BUILTIN_DIR = pathlib.Path(__file__).parent / "builtin"

_TOP_KEYS = {"name", "description", "sync", "event_limit", "issuers", "issue_cycles",
             "spaces", "units", "routes"}
_UNIT_KEYS = {"kind", "pipelined", "fixed", "bytes_per_cycle", "macs_per_cycle", "k_block",
              "cycles_per_k_block", "op_factor", "fusion"}
_FUSION_KEYS = {"member_fixed", "register_bytes_per_cycle", "live_tiles"}
_ROUTE_KEYS = {"ops", "unit", "src", "dst", "fixed", "bytes_per_cycle", "async_queue"}
_SPACE_KEYS = {"capacity", "global"}


def builtin_target_names() -> list[str]:
    """Names of the targets shipped with tilesched."""
    return sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))


def load_target(spec: str) -> Target:
    """Load a built-in target by name, or a user's TOML file by path."""
    path = pathlib.Path(spec)
    if spec in builtin_target_names():
        path = BUILTIN_DIR / f"{spec}.toml"
    elif not (spec.endswith(".toml") or path.exists()):
        names = ", ".join(builtin_target_names())
        raise TileschedError(f"unknown target '{spec}'; valid targets: {names} (or a path to a .toml file)")
    if not path.is_file():
        raise TileschedError(f"target file '{spec}' does not exist")
    return parse_target(path.read_text(), str(path))


def parse_target(text: str, filename: str = "<target>") -> Target:
    """Parse and validate the TOML text of a machine model."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        loc = Location(filename, int(match.group(1)), int(match.group(2))) if match else filename
        raise TileschedError(f"invalid TOML: {str(err).split(' (at line')[0]}", loc) from None
    return _Validator(text, filename).target(data)


class _Validator:
    """Turns parsed TOML into a :class:`Target`, reporting the first problem with its line."""

    def __init__(self, text: str, filename: str):
        self.lines = text.splitlines()
        self.filename = filename

    def fail(self, key_path: str, message: str) -> TileschedError:
        return TileschedError(f"{key_path}: {message}", self.locate(key_path))

    def locate(self, key_path: str) -> Location | str:
        """The line of a dotted key (``units.V.kind``, ``routes[0].unit``), else of its table."""
        wanted = re.findall(r"\[\d+\]|[^.\[\]]+", key_path)
        current: list[str] = []
        arrays: dict[str, int] = {}
        best, best_depth = None, 0
        for number, line in enumerate(self.lines, 1):
            path = self._line_path(line.strip(), current, arrays)
            if path is None:
                continue
            if path[1]:  # a table header: it becomes the current table
                current = path[0]
            if path[0] and wanted[:len(path[0])] == path[0] and len(path[0]) > best_depth:
                best, best_depth = number, len(path[0])
        return Location(self.filename, best, 1) if best else self.filename

    @staticmethod
    def _line_path(line: str, current: list[str], arrays: dict[str, int]):
        """(key path, is_header) that a TOML line defines, or None."""
        if match := re.match(r"^\[\[\s*([^\]]+?)\s*\]\]", line):
            name = match.group(1)
            index = arrays.get(name, 0)
            arrays[name] = index + 1
            return name.split(".") + [f"[{index}]"], True
        if match := re.match(r"^\[\s*([^\]]+?)\s*\]", line):
            return match.group(1).split("."), True
        if match := re.match(r'^"?([\w.\-]+)"?\s*=', line):
            return current + match.group(1).split("."), False
        return None

    def expect(self, value: Any, kind: type | tuple[type, ...], key_path: str) -> Any:
        if isinstance(value, bool) and kind in (int, float, (int, float)):
            raise self.fail(key_path, "expected a number, got a boolean")
        if not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.fail(key_path, f"expected {names}, got {type(value).__name__} {value!r}")
        return value

    def no_unknown_keys(self, table: dict, allowed: set[str], key_path: str) -> None:
        for key in table:
            if key not in allowed:
                raise self.fail(f"{key_path}.{key}" if key_path else key,
                                f"unknown key; expected one of {sorted(allowed)}")

    def target(self, data: dict) -> Target:
        self.no_unknown_keys(data, _TOP_KEYS, "")
        for required in ("name", "sync", "issuers", "spaces", "units", "routes"):
            if required not in data:
                raise TileschedError(f"missing required key '{required}'", self.filename)
        sync = self.expect(data["sync"], str, "sync")
        if sync not in SYNC_FAMILIES:
            raise self.fail("sync", f"expected one of {list(SYNC_FAMILIES)}, got '{sync}'")
        issuers = tuple(self.expect(i, str, "issuers") for i in self.expect(data["issuers"], list, "issuers"))
        if not issuers:
            raise self.fail("issuers", "at least one issuer is required")
        units = {name: self.unit(name, spec) for name, spec in self.expect(data["units"], dict, "units").items()}
        spaces = {name: self.space(name, spec) for name, spec in self.expect(data["spaces"], dict, "spaces").items()}
        routes = tuple(self.route(i, spec, units, spaces)
                       for i, spec in enumerate(self.expect(data["routes"], list, "routes")))
        event_limit = data.get("event_limit")
        if event_limit is not None and self.expect(event_limit, int, "event_limit") <= 0:
            raise self.fail("event_limit", "must be positive")
        if sync == "flags" and event_limit is None:
            raise self.fail("sync", "a flag target needs 'event_limit' (event ids per unit pair)")
        issue_cycles = self.expect(data.get("issue_cycles", 1), int, "issue_cycles")
        return Target(
            name=self.expect(data["name"], str, "name"),
            description=self.expect(data.get("description", ""), str, "description"),
            sync=sync, issuers=issuers, spaces=spaces, units=units, routes=routes,
            event_limit=event_limit, issue_cycles=issue_cycles, path=self.filename,
        )

    def unit(self, name: str, spec: Any) -> Unit:
        key = f"units.{name}"
        self.expect(spec, dict, key)
        self.no_unknown_keys(spec, _UNIT_KEYS, key)
        kind = self.expect(spec.get("kind", "queued"), str, f"{key}.kind")
        if kind not in UNIT_KINDS:
            raise self.fail(f"{key}.kind", f"expected one of {list(UNIT_KINDS)}, got '{kind}'")
        numbers = {}
        for field_name in ("fixed", "k_block", "cycles_per_k_block"):
            if field_name in spec:
                numbers[field_name] = self.non_negative(spec[field_name], f"{key}.{field_name}", int)
        for field_name in ("bytes_per_cycle", "macs_per_cycle"):
            if field_name in spec:
                numbers[field_name] = float(self.non_negative(spec[field_name], f"{key}.{field_name}"))
        factors = self.expect(spec.get("op_factor", {}), dict, f"{key}.op_factor")
        for op, factor in factors.items():
            self.non_negative(factor, f"{key}.op_factor.{op}")
        pipelined = self.expect(spec.get("pipelined", False), bool, f"{key}.pipelined")
        fusion = self.fusion(spec["fusion"], f"{key}.fusion") if "fusion" in spec else None
        return Unit(name=name, kind=kind, pipelined=pipelined, op_factor=dict(factors),
                    fusion=fusion, **numbers)

    def fusion(self, spec: Any, key: str) -> FusionModel:
        """A unit's fused-execution model (docs/fuse-tiles.md)."""
        self.expect(spec, dict, key)
        self.no_unknown_keys(spec, _FUSION_KEYS, key)
        values = {}
        if "member_fixed" in spec:
            values["member_fixed"] = self.non_negative(spec["member_fixed"], f"{key}.member_fixed", int)
        if "register_bytes_per_cycle" in spec:
            rate = self.non_negative(spec["register_bytes_per_cycle"], f"{key}.register_bytes_per_cycle")
            if rate == 0:
                raise self.fail(f"{key}.register_bytes_per_cycle", "must be positive")
            values["register_bytes_per_cycle"] = float(rate)
        if "live_tiles" in spec:
            live = self.non_negative(spec["live_tiles"], f"{key}.live_tiles", int)
            if live < 2:
                raise self.fail(f"{key}.live_tiles", f"must be at least 2, got {live}")
            values["live_tiles"] = live
        return FusionModel(**values)

    def non_negative(self, value: Any, key: str, kind: type | tuple = (int, float)) -> Any:
        self.expect(value, kind, key)
        if value < 0:
            raise self.fail(key, f"must be non-negative, got {value}")
        return value

    def space(self, name: str, spec: Any) -> Space:
        key = f"spaces.{name}"
        self.expect(spec, dict, key)
        self.no_unknown_keys(spec, _SPACE_KEYS, key)
        capacity = spec.get("capacity")
        if capacity is not None:
            self.non_negative(capacity, f"{key}.capacity", int)
        is_global = self.expect(spec.get("global", False), bool, f"{key}.global")
        return Space(name=name, capacity=capacity, is_global=is_global)

    def route(self, index: int, spec: Any, units: dict, spaces: dict) -> Route:
        key = f"routes[{index}]"
        self.expect(spec, dict, key)
        self.no_unknown_keys(spec, _ROUTE_KEYS, key)
        if "ops" not in spec or "unit" not in spec:
            raise self.fail(key, "a route needs 'ops' and 'unit'")
        unit = self.expect(spec["unit"], str, f"{key}.unit")
        if unit not in units:
            raise self.fail(f"{key}.unit", f"unknown unit '{unit}'; units: {sorted(units)}")
        lists = {}
        for field_name in ("ops", "src", "dst"):
            values = self.expect(spec.get(field_name, []), list, f"{key}.{field_name}")
            for value in values:
                self.expect(value, str, f"{key}.{field_name}")
                if field_name != "ops" and value not in spaces:
                    raise self.fail(f"{key}.{field_name}", f"unknown space '{value}'; spaces: {sorted(spaces)}")
            lists[field_name] = tuple(values)
        extra = {}
        if "fixed" in spec:
            extra["fixed"] = self.non_negative(spec["fixed"], f"{key}.fixed", int)
        if "bytes_per_cycle" in spec:
            extra["bytes_per_cycle"] = float(self.non_negative(spec["bytes_per_cycle"], f"{key}.bytes_per_cycle"))
        if "async_queue" in spec:
            extra["async_queue"] = self.non_negative(spec["async_queue"], f"{key}.async_queue", int)
        return Route(unit=unit, **lists, **extra)
