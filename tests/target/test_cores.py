"""Split-core targets (ascend-a2-mix): the cores table, inherited numbers, the routing rule."""

from __future__ import annotations

import pytest

from tilesched.diagnostics import TileschedError
from tilesched.target import load_target, parse_target
from tilesched.target.cores import Core, CoreRoutingError, route_core

CORES = {
    "AIC": Core("AIC", "AIC.S", ("S", "MTE2", "MTE1", "M", "FIX"), ("L1", "L0A", "L0B", "L0C")),
    "AIV0": Core("AIV0", "AIV0.S", ("S", "MTE2", "V", "MTE3"), ("UB",)),
    "AIV1": Core("AIV1", "AIV1.S", ("S", "MTE2", "V", "MTE3"), ("UB",)),
}


def test_mix_target_has_three_cores_with_their_own_issuers_and_units():
    mix, a2 = load_target("ascend-a2-mix"), load_target("ascend-a2")
    assert list(mix.cores) == ["AIC", "AIV0", "AIV1"]
    assert mix.issuers == ("AIC.S", "AIV0.S", "AIV1.S")
    assert {u for u in mix.units if u.startswith("AIC.")} == {
        "AIC.S", "AIC.MTE2", "AIC.MTE1", "AIC.M", "AIC.FIX"}
    assert {u for u in mix.units if u.startswith("AIV1.")} == {
        "AIV1.S", "AIV1.MTE2", "AIV1.V", "AIV1.MTE3"}
    assert mix.cross_event_limit == 16
    # the numbers are ascend-a2's (inherited), per unit instance
    for name, unit in mix.units.items():
        core, base = name.split(".")
        assert unit.kind == a2.units[base].kind
        assert unit.bytes_per_cycle == a2.units[base].bytes_per_cycle
        assert unit.formulas == a2.units[base].formulas
    assert (mix.event_limit, mix.frequency_hz, mix.spaces) == (a2.event_limit, a2.frequency_hz, a2.spaces)
    assert mix.core_of("AIV0.V") == "AIV0" and mix.core_of("V") is None
    assert load_target("ascend-a2").cores == {}


@pytest.mark.parametrize(("spaces", "unit", "annotation", "core"), [
    (("L1",), "MTE2", None, "AIC"),        # GM -> L1
    (("L1", "L0A"), "MTE1", None, "AIC"),
    (("L0C",), "FIX", None, "AIC"),        # L0C -> GM
    (("UB",), "MTE2", None, "AIV0"),       # GM -> UB: the first vector core
    (("UB",), "V", "AIV1", "AIV1"),        # annotation picks the other one
    (("UB",), "MTE3", None, "AIV0"),
    ((), "S", None, "AIC"),                # GM only: the first core with the unit
    ((), "S", "AIV1", "AIV1"),
])
def test_route_core(spaces, unit, annotation, core):
    assert route_core(CORES, spaces, unit, annotation) == core


@pytest.mark.parametrize(("spaces", "unit", "annotation", "message"), [
    (("L1", "UB"), "MTE1", None, "touches spaces of different cores"),
    (("UB",), "V", "AIC", "core \"AIC\" has no unit V"),
    (("UB",), "MTE2", "AIC", "core \"AIC\" does not own space \"UB\""),
    (("UB",), "V", "AIV7", "unknown core \"AIV7\""),
    (("UB",), "M", None, "has unit M"),
])
def test_route_core_refuses(spaces, unit, annotation, message):
    with pytest.raises(CoreRoutingError, match=message):
        route_core(CORES, spaces, unit, annotation)


BASE = 'base = "ascend-a2"\nname = "m"\ncross_event_limit = 4\n'
CORE = '[cores.C]\nissuer = "S"\nunits = ["S", "V"]\nspaces = ["UB"]\n'


@pytest.mark.parametrize(("text", "message"), [
    (BASE + CORE.replace('"V"]', '"W"]'), r"m.toml:6:1: error: cores.C.units: unknown unit 'W'"),
    (BASE + CORE.replace('issuer = "S"', 'issuer = "V"'),
     r"m.toml:5:1: error: cores.C.issuer: the issuer must be one of the core's units of kind inline"),
    (BASE + CORE.replace('["UB"]', '["GM"]'), r"m.toml:7:1: error: cores.C.spaces: 'GM' is global"),
    (BASE + 'issuers = ["S"]\n' + CORE, r"m.toml:4:1: error: issuers: a target with cores"),
    (BASE.replace("cross_event_limit = 4\n", "") + CORE, r"error: cores: a flag target with cores needs"),
    (BASE.replace("ascend-a2", "nothing-here") + CORE, r"m.toml:1:1: error: base: base target 'nothing-here'"),
    (BASE + CORE.replace("[cores.C]", "[cores.\"C.D\"]"), r"error: cores.C.D: a core name may not"),
    (BASE.replace("= 4", "= 0") + CORE, r"m.toml:3:1: error: cross_event_limit: must be at least 1"),
])
def test_core_table_errors_are_located(text, message):
    with pytest.raises(TileschedError, match=message):
        parse_target(text, "m.toml")


def test_cross_event_limit_needs_cores():
    text = load_target("ascend-a2").path
    with open(text, encoding="utf-8") as f:
        body = f.read()
    with pytest.raises(TileschedError, match="cross_event_limit: only a target with cores"):
        parse_target("cross_event_limit = 4\n" + body, "x.toml")
