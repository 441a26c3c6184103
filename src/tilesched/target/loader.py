"""Load and validate machine models from TOML (schema: ``docs/targets.md``).

``load_target(spec)`` accepts a built-in name (``ascend-a2``) or a path to a
user's TOML file. Every validation error names the file, and where it can be
found, the line of the offending key: ``my.toml:12:1: error: units.V.kind: ...``.

Every number must be finite and inside the range :data:`LIMITS` gives its key: a bandwidth
of ``nan``, ``0`` or ``1e-300`` bytes per cycle would give cycle counts below the program's
own bound, or with hundreds of digits, instead of an error.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import re
import tomllib
from typing import Any

from tilesched.diagnostics import Location, TileschedError
from tilesched.input_files import read_text
from tilesched.target.cores import Core, qualified
from tilesched.target.model import (
    SYNC_FAMILIES,
    UNIT_KINDS,
    FusionModel,
    MatmulModel,
    Route,
    Space,
    Target,
    Unit,
    VectorFormula,
)

BUILTIN_DIR = pathlib.Path(__file__).parent / "builtin"

# A machine model is a few kilobytes of flat tables; these bound a mistaken or hostile file.
MAX_TARGET_BYTES = 1 << 20
MAX_TARGET_NESTING = 32

_TOP_KEYS = {"name", "description", "sync", "event_limit", "issuers", "issue_cycles",
             "frequency_hz", "spaces", "units", "routes", "base", "cores", "cross_event_limit"}
_CORE_KEYS = {"issuer", "units", "spaces"}
_UNIT_KEYS = {"kind", "pipelined", "fixed", "bytes_per_cycle", "macs_per_cycle", "k_block",
              "cycles_per_k_block", "op_factor", "fusion", "formulas", "matmul"}
_FUSION_KEYS = {"member_fixed", "register_bytes_per_cycle", "live_tiles"}
_MATMUL_KEYS = {"head", "fractal_m", "fractal_n", "fractal_k_bytes", "cycles_per_fractal"}
_ROUTE_KEYS = {"ops", "unit", "src", "dst", "fixed", "bytes_per_cycle", "async_queue",
               "element_bytes"}
_SPACE_KEYS = {"capacity", "global"}

# key -> (type, smallest, largest): the sane range of every number in a target file.
LIMITS: dict[str, tuple[type | tuple[type, ...], float, float]] = {
    "event_limit": (int, 1, 1024),
    "cross_event_limit": (int, 1, 1024),
    "issue_cycles": (int, 0, 10**6),
    "capacity": (int, 0, 1 << 50),
    "fixed": (int, 0, 10**9),
    "k_block": (int, 1, 10**6),
    "cycles_per_k_block": (int, 0, 10**9),
    "async_queue": (int, 0, 1024),
    "bytes_per_cycle": ((int, float), 1e-3, 1e9),
    "macs_per_cycle": ((int, float), 1e-3, 1e12),
    "op_factor": ((int, float), 1e-3, 1e6),
    "member_fixed": (int, 0, 10**9),
    "register_bytes_per_cycle": ((int, float), 1e-3, 1e9),
    "live_tiles": (int, 2, 10**6),
    "frequency_hz": ((int, float), 1e3, 1e12),
    "element_bytes": (int, 1, 64),
    "head": (int, 0, 10**9),
    "fractal_m": (int, 1, 10**6),
    "fractal_n": (int, 1, 10**6),
    "fractal_k_bytes": (int, 1, 10**6),
    "cycles_per_fractal": (int, 0, 10**9),
    "cols": (int, 1, 10**9),
    "slope": ((int, float), 0, 10**6),
    "bias": ((int, float), 0, 10**9),
}


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
    if not path.exists():
        raise TileschedError(f"target file '{spec}' does not exist")
    if not path.is_file():
        what = "a directory" if path.is_dir() else "not a regular file"
        raise TileschedError(f"target file '{spec}' is {what}")
    if path.stat().st_size > MAX_TARGET_BYTES:
        raise TileschedError(f"target file '{spec}' has {path.stat().st_size:,} bytes, more than "
                             f"a target file may have ({MAX_TARGET_BYTES:,})")
    return parse_target(read_text(str(path), "target file", MAX_TARGET_BYTES), str(path))


def parse_target(text: str, filename: str = "<target>") -> Target:
    """Parse and validate the TOML text of a machine model (at most :data:`MAX_TARGET_BYTES`,
    arrays and inline tables nested at most :data:`MAX_TARGET_NESTING` deep)."""
    text = text.removeprefix("\ufeff")
    if len(text) > MAX_TARGET_BYTES:
        raise TileschedError(f"target file has {len(text):,} characters, more than a target "
                             f"file may have ({MAX_TARGET_BYTES:,})", filename)
    if (deep := _too_deep(text)) is not None:
        line, column = text.count("\n", 0, deep) + 1, deep - text.rfind("\n", 0, deep)
        raise TileschedError(f"arrays or inline tables nested deeper than {MAX_TARGET_NESTING} "
                             "levels", Location(filename, line, column))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        loc = Location(filename, int(match.group(1)), int(match.group(2))) if match else filename
        raise TileschedError(f"invalid TOML: {str(err).split(' (at line')[0]}", loc) from None
    except RecursionError:  # _too_deep leaves none; kept so a missed case stays located
        raise TileschedError("target file nested too deeply", filename) from None
    own_keys = set(data)
    base = None
    if "base" in data:
        data, base = _with_base(data, text, filename)
    target = _Validator(text, filename).target(data, own_keys)
    return dataclasses.replace(target, base=base) if base is not None else target


def _with_base(data: dict, text: str, filename: str) -> tuple[dict, Target]:
    """``data`` with every top-level key it does not give taken from its ``base`` target (a
    built-in name, or a path relative to the file): a split-core target keeps the numbers of
    the target it splits in one place. The base is validated on its own first, so its errors
    point into its own file; a base may not have a base itself."""
    validator = _Validator(text, filename)
    spec = validator.expect(data["base"], str, "base")
    if spec in builtin_target_names():
        path = BUILTIN_DIR / f"{spec}.toml"
    else:
        path = pathlib.Path(filename).parent / spec
        if not path.is_file():
            raise validator.fail("base", f"base target '{spec}' is neither a built-in target "
                                 f"({', '.join(builtin_target_names())}) nor a file")
    base_text = read_text(str(path), "target file", MAX_TARGET_BYTES).removeprefix("\ufeff")
    base_target = parse_target(base_text, str(path))  # its errors, located in its own file
    base = tomllib.loads(base_text)
    if "base" in base:
        raise validator.fail("base", f"base target '{spec}' has a base itself; give the "
                             "numbers in one file")
    return {**base, **{k: v for k, v in data.items() if k != "base"}}, base_target


def _too_deep(text: str) -> int | None:
    """The offset of the first ``[`` or ``{`` that opens level :data:`MAX_TARGET_NESTING` + 1
    (outside strings and comments), or None. tomllib recurses once per level and would raise
    RecursionError (an internal error) on a few thousand."""
    depth = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            quote = c * 3 if text.startswith(c * 3, i) else c
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if c == '"' and text[i] == "\\":
                    i += 1
                elif len(quote) == 1 and text[i] == "\n":
                    break
                i += 1
            i += len(quote)
            continue
        if c == "#":
            i = text.find("\n", i)
            if i < 0:
                return None
        elif c in "[{":
            depth += 1
            if depth > MAX_TARGET_NESTING:
                return i
        elif c in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return None


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

    def target(self, data: dict, own_keys: set[str] | None = None) -> Target:
        self.no_unknown_keys(data, _TOP_KEYS, "")
        has_cores = "cores" in data
        for required in ("name", "sync", "issuers", "spaces", "units", "routes"):
            if required not in data and not (required == "issuers" and has_cores):
                raise TileschedError(f"missing required key '{required}'", self.filename)
        if has_cores and "issuers" in (own_keys if own_keys is not None else data):
            raise self.fail("issuers", "a target with cores has one issuer per core (its "
                            "'issuer'); leave 'issuers' out")
        sync = self.expect(data["sync"], str, "sync")
        if sync not in SYNC_FAMILIES:
            raise self.fail("sync", f"expected one of {list(SYNC_FAMILIES)}, got '{sync}'")
        units = {name: self.unit(name, spec) for name, spec in self.expect(data["units"], dict, "units").items()}
        spaces = {name: self.space(name, spec) for name, spec in self.expect(data["spaces"], dict, "spaces").items()}
        routes = tuple(self.route(i, spec, units, spaces)
                       for i, spec in enumerate(self.expect(data["routes"], list, "routes")))
        cores = self.cores(data["cores"], units, spaces) if has_cores else {}
        if cores:
            issuers = tuple(core.issuer for core in cores.values())
            units = {qualified(core.name, unit): dataclasses.replace(
                         units[unit], name=qualified(core.name, unit))
                     for core in cores.values() for unit in core.units}
        else:
            issuers = tuple(self.expect(i, str, "issuers")
                            for i in self.expect(data["issuers"], list, "issuers"))
        if not issuers:
            raise self.fail("issuers", "at least one issuer is required")
        cross_limit = data.get("cross_event_limit")
        if cross_limit is not None:
            self.number(cross_limit, "cross_event_limit")
            if not cores:
                raise self.fail("cross_event_limit", "only a target with cores has cross-core "
                                "flags")
        elif cores and sync == "flags":
            raise self.fail("cores", "a flag target with cores needs 'cross_event_limit' "
                            "(cross-core flag ids)")
        event_limit = data.get("event_limit")
        if event_limit is not None:
            self.number(event_limit, "event_limit")
        if sync == "flags" and event_limit is None:
            raise self.fail("sync", "a flag target needs 'event_limit' (event ids per unit pair)")
        issue_cycles = self.number(data.get("issue_cycles", 1), "issue_cycles")
        frequency = data.get("frequency_hz")
        if frequency is not None:
            frequency = float(self.number(frequency, "frequency_hz"))
        return Target(
            name=self.expect(data["name"], str, "name"),
            description=self.expect(data.get("description", ""), str, "description"),
            sync=sync, issuers=issuers, spaces=spaces, units=units, routes=routes,
            event_limit=event_limit, issue_cycles=issue_cycles, path=self.filename,
            frequency_hz=frequency, cores=cores, cross_event_limit=cross_limit,
        )

    def cores(self, spec: Any, units: dict[str, Unit], spaces: dict[str, Space]) -> dict[str, Core]:
        """``[cores.NAME]`` tables: each core's issuer (one of its units, of kind inline), the
        target's units it has and the local spaces it owns (target/cores.py)."""
        self.expect(spec, dict, "cores")
        if not spec:
            raise self.fail("cores", "at least one core is required")
        cores = {}
        for name, table in spec.items():
            key = f"cores.{name}"
            self.expect(table, dict, key)
            self.no_unknown_keys(table, _CORE_KEYS, key)
            if "." in name:
                raise self.fail(key, f"a core name may not contain '.', got '{name}'")
            for required in ("issuer", "units", "spaces"):
                if required not in table:
                    raise self.fail(key, f"a core needs '{required}'")
            core_units = tuple(self.expect(u, str, f"{key}.units")
                               for u in self.expect(table["units"], list, f"{key}.units"))
            for unit in core_units:
                if unit not in units:
                    raise self.fail(f"{key}.units", f"unknown unit '{unit}'; units: {sorted(units)}")
            issuer = self.expect(table["issuer"], str, f"{key}.issuer")
            if issuer not in core_units or units[issuer].kind != "inline":
                raise self.fail(f"{key}.issuer", f"the issuer must be one of the core's units of "
                                f"kind inline, got '{issuer}'")
            owned = tuple(self.expect(s, str, f"{key}.spaces")
                          for s in self.expect(table["spaces"], list, f"{key}.spaces"))
            for space in owned:
                if space not in spaces:
                    raise self.fail(f"{key}.spaces", f"unknown space '{space}'; spaces: {sorted(spaces)}")
                if spaces[space].is_global:
                    raise self.fail(f"{key}.spaces", f"'{space}' is global: every core reaches it")
            cores[name] = Core(name=name, issuer=qualified(name, issuer), units=core_units,
                               spaces=owned)
        return cores

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
                numbers[field_name] = self.number(spec[field_name], f"{key}.{field_name}")
        for field_name in ("bytes_per_cycle", "macs_per_cycle"):
            if field_name in spec:
                numbers[field_name] = float(self.number(spec[field_name], f"{key}.{field_name}"))
        factors = self.expect(spec.get("op_factor", {}), dict, f"{key}.op_factor")
        for op, factor in factors.items():
            self.number(factor, f"{key}.op_factor.{op}", "op_factor")
        pipelined = self.expect(spec.get("pipelined", False), bool, f"{key}.pipelined")
        fusion = self.fusion(spec["fusion"], f"{key}.fusion") if "fusion" in spec else None
        formulas = self.formulas(spec["formulas"], f"{key}.formulas") if "formulas" in spec else {}
        matmul = self.matmul(spec["matmul"], f"{key}.matmul") if "matmul" in spec else None
        return Unit(name=name, kind=kind, pipelined=pipelined, op_factor=dict(factors),
                    fusion=fusion, formulas=formulas, matmul=matmul, **numbers)

    def formulas(self, spec: Any, key: str) -> dict[str, VectorFormula]:
        """Per-op vector formulas: rows ``[dtype, cols, slope, bias]`` (``"*"``: any), or the
        name of another op whose rows this op shares (docs/targets.md, "Latency model")."""
        self.expect(spec, dict, key)
        rows: dict[str, tuple] = {}
        for op, value in spec.items():
            if isinstance(value, str):
                continue
            entries = self.expect(value, list, f"{key}.{op}")
            rows[op] = tuple(self.formula_row(entry, f"{key}.{op}") for entry in entries)
        for op, value in spec.items():
            if isinstance(value, str):
                if value not in rows:
                    raise self.fail(f"{key}.{op}", f"'{value}' has no rows of its own to share")
                rows[op] = rows[value]
        return {op: VectorFormula(op_rows) for op, op_rows in rows.items()}

    def formula_row(self, entry: Any, key: str) -> tuple[str, int | None, float, float]:
        """One ``[dtype, cols, slope, bias]`` row of a vector formula."""
        self.expect(entry, list, key)
        if len(entry) != 4:
            raise self.fail(key, f"a formula row is [dtype, cols, slope, bias], got {entry!r}")
        dtype, cols, slope, bias = entry
        self.expect(dtype, str, key)
        if cols != "*":
            if isinstance(cols, str):
                raise self.fail(key, f"cols must be a column count or \"*\", got {cols!r}")
            self.number(cols, key, "cols")
        return (dtype, None if cols == "*" else cols, float(self.number(slope, key, "slope")),
                float(self.number(bias, key, "bias")))

    def matmul(self, spec: Any, key: str) -> MatmulModel:
        """A unit's cube cost per matmul instruction (head + fractals)."""
        self.expect(spec, dict, key)
        self.no_unknown_keys(spec, _MATMUL_KEYS, key)
        values: dict[str, Any] = {}
        for field_name in ("head", "fractal_m", "fractal_n", "fractal_k_bytes"):
            if field_name in spec:
                values[field_name] = self.number(spec[field_name], f"{key}.{field_name}")
        if "cycles_per_fractal" in spec:
            rates = self.expect(spec["cycles_per_fractal"], dict, f"{key}.cycles_per_fractal")
            for dtype, rate in rates.items():
                self.number(rate, f"{key}.cycles_per_fractal.{dtype}", "cycles_per_fractal")
            values["cycles_per_fractal"] = dict(rates)
        return MatmulModel(**values)

    def fusion(self, spec: Any, key: str) -> FusionModel:
        """A unit's fused-execution model (docs/fuse-tiles.md)."""
        self.expect(spec, dict, key)
        self.no_unknown_keys(spec, _FUSION_KEYS, key)
        values = {}
        for field_name in ("member_fixed", "register_bytes_per_cycle", "live_tiles"):
            if field_name in spec:
                values[field_name] = self.number(spec[field_name], f"{key}.{field_name}")
        if "register_bytes_per_cycle" in values:
            values["register_bytes_per_cycle"] = float(values["register_bytes_per_cycle"])
        return FusionModel(**values)

    def number(self, value: Any, key: str, limit: str | None = None) -> int | float:
        """A number of the type and range :data:`LIMITS` gives the key (its last part, or
        ``limit``); nan, infinities and absurd magnitudes are refused."""
        kind, low, high = LIMITS[limit or key.rsplit(".", 1)[-1]]
        self.expect(value, kind, key)
        if not math.isfinite(value):
            raise self.fail(key, f"must be a finite number, got {value}")
        if value < low:
            need = ("non-negative" if low == 0 else f"at least {low:g}" if kind is int
                    else f"positive (at least {low:g})")
            raise self.fail(key, f"must be {need}, got {value:g}")
        if value > high:
            raise self.fail(key, f"must be at most {high:g}, got {value:g}")
        return value

    def space(self, name: str, spec: Any) -> Space:
        key = f"spaces.{name}"
        self.expect(spec, dict, key)
        self.no_unknown_keys(spec, _SPACE_KEYS, key)
        capacity = spec.get("capacity")
        if capacity is not None:
            self.number(capacity, f"{key}.capacity")
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
        for field_name in ("fixed", "bytes_per_cycle", "async_queue", "element_bytes"):
            if field_name in spec:
                extra[field_name] = self.number(spec[field_name], f"{key}.{field_name}")
        if "bytes_per_cycle" in extra:
            extra["bytes_per_cycle"] = float(extra["bytes_per_cycle"])
        return Route(unit=unit, **lists, **extra)
