"""insert-sync on a split-core target (ascend-a2-mix), checked without the simulator.

The simulator does not model cores yet (issue 30, phase B), so random straight-line mixed
programs (cube, vector core 0 and vector core 1 exchanging 16x16 tiles through shared GM
buffers) are checked against a small happens-before oracle written here from DESIGN.md §4 and
the cross-core flag semantics of docs/ir.md: a queued op starts after the previous op of its unit
and after what its core's issuer had waited for when it issued it; ``set_flag`` / ``cross_set``
carry what their src unit has done, the k-th wait of a flag receives the k-th set's knowledge
(``wait_flag`` into its dst unit, ``cross_wait`` into its dst core's issuer). After insert-sync
every pair of conflicting accesses from different units must be ordered, every flag must be set
before its wait is reached in program order (no deadlock in straight-line code), and the output
must verify (ids within the limits, flags inside one core).
"""

from __future__ import annotations

from collections import defaultdict, deque

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.analysis.units import op_route
from tilesched.ir import parse_text, print_module, verify_module
from tilesched.ir import sync as S
from tilesched.ir.tile import SlotOp, TileOp, ViewOp
from tilesched.target import load_target
from tilesched.target.cores import qualified
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

T16 = 'memref<16x16xf16, "{}">'
T32 = 'memref<16x16xf32, "{}">'
G16, G32, L1, L0A, L0B, L0C, UB = (T16.format("GM"), T32.format("GM"), T16.format("L1"),
                                   T16.format("L0A"), T16.format("L0B"), T32.format("L0C"),
                                   T32.format("UB"))
GLOBALS = ["%g0", "%g1"]
CUBE = [
    f"tile.load %a, %l1 : {G16}, {L1}",
    f"tile.copy %l1, %l0a : {L1}, {L0A}",
    f"tile.copy %l1, %l0b : {L1}, {L0B}",
    f"tile.matmul %l0a, %l0b, %l0c : {L0A}, {L0B}, {L0C}",
    "tile.store %l0c, {g} : " + f"{L0C}, {G32}",
]


def _vector(ub: str, ub2: str, core: str) -> list[str]:
    note = f' {{tile.core = "{core}"}}' if core != "AIV0" else ""
    return [
        "tile.load {g}, " + f"{ub}{note} : {G32}, {UB}",
        f"tile.exp {ub}, {ub2}{note} : {UB}, {UB}",
        f"tile.add {ub}, {ub2}, {ub}{note} : {UB}, {UB}, {UB}",
        f"tile.store {ub2}, " + "{g}" + f"{note} : {UB}, {G32}",
    ]


TEMPLATES = CUBE + _vector("%u0", "%u1", "AIV0") + _vector("%v0", "%v1", "AIV1")


@st.composite
def mixed_programs(draw) -> str:
    lines = [draw(st.sampled_from(TEMPLATES)).replace("{g}", draw(st.sampled_from(GLOBALS)))
             for _ in range(draw(st.integers(2, 14)))]
    allocs = [f"%{name} = memref.alloc() : {kind}" for name, kind in (
        ("l1", L1), ("l0a", L0A), ("l0b", L0B), ("l0c", L0C),
        ("u0", UB), ("u1", UB), ("v0", UB), ("v1", UB))]
    body = "\n  ".join(allocs + lines)
    return (f"func.func @k(%a: {G16}, %g0: {G32}, %g1: {G32}) {{\n  {body}\n"
            "  func.return\n}\n")


def _root(value):
    while isinstance(value.owner, ViewOp | SlotOp):
        value = value.owner.source
    return value


def unordered_conflicts(module, target) -> list[tuple[str, str]]:
    """Pairs of conflicting accesses the oracle finds unordered, and waits reached before
    their set (reported as ``("deadlock", ...)``), in a straight-line function."""
    fn = next(op for op in module.walk() if op.name == "func.func")
    unit_know: dict[str, set[int]] = defaultdict(set)  # what a unit's completed ops knew
    issuer_know: dict[str, set[int]] = defaultdict(set)  # what a core's issuer waited for
    sets: dict[tuple, deque] = defaultdict(deque)
    accesses: list[tuple[int, str, object, bool, set[int]]] = []  # (op, unit, root, write, knows)
    problems = []
    for k, op in enumerate(fn.body.block.ops):
        if isinstance(op, TileOp) and op_route(op, target) is not None:
            unit = op_route(op, target).unit
            core = target.core_of(unit)
            knows = unit_know[unit] | issuer_know[core]
            memrefs = op.memref_operands
            for j, value in enumerate(memrefs):
                write = j == len(memrefs) - 1
                accesses.append((k, unit, _root(value), write, knows))
                if write and op.name == "tile.matmul" and "accumulate" in op.properties:
                    accesses.append((k, unit, _root(value), False, knows))
            unit_know[unit] = knows | {k}
        elif isinstance(op, S.SetFlagOp):
            sets[("flag", op.src.data, op.dst.data, op.event.value.data)].append(
                set(unit_know[op.src.data]))
        elif isinstance(op, S.WaitFlagOp):
            queue = sets[("flag", op.src.data, op.dst.data, op.event.value.data)]
            if not queue:
                problems.append(("deadlock", str(op)))
                continue
            unit_know[op.dst.data] |= queue.popleft()
        elif isinstance(op, S.CrossSetOp):
            unit = qualified(op.src.data, op.unit.data)
            sets[("cross", op.src.data, op.dst.data, op.id.value.data)].append(
                set(unit_know[unit]))
        elif isinstance(op, S.CrossWaitOp):
            queue = sets[("cross", op.src.data, op.dst.data, op.id.value.data)]
            if not queue:
                problems.append(("deadlock", str(op)))
                continue
            issuer_know[op.dst.data] |= queue.popleft()
    for i, (k1, u1, r1, w1, _) in enumerate(accesses):
        for k2, u2, r2, w2, knows2 in accesses[i + 1:]:
            if r1 is r2 and (w1 or w2) and u1 != u2 and k1 != k2 and k1 not in knows2:
                problems.append((f"op {k1} on {u1}", f"op {k2} on {u2}"))
    return problems


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_programs())
def test_random_mixed_programs_are_ordered_after_insert_sync(text):
    target = load_target("ascend-a2-mix")
    module = parse_text(text)
    verify_module(module, target)
    run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target=target))
    verify_module(module, target)
    assert unordered_conflicts(module, target) == [], print_module(module)


def test_the_oracle_finds_a_missing_cross_core_flag():
    target = load_target("ascend-a2-mix")
    text = (f"func.func @k(%g0: {G32}) {{\n  %l0c = memref.alloc() : {L0C}\n"
            f"  %u0 = memref.alloc() : {UB}\n"
            f"  tile.store %l0c, %g0 : {L0C}, {G32}\n  tile.load %g0, %u0 : {G32}, {UB}\n"
            "  func.return\n}\n")
    module = parse_text(text)
    assert unordered_conflicts(module, target) == [("op 2 on AIC.FIX", "op 3 on AIV0.MTE2")]
    run_pipeline(module, parse_pass_pipeline("insert-sync"), TileContext(target=target))
    assert unordered_conflicts(module, target) == []
    assert sum(isinstance(op, S.CrossSetOp | S.CrossWaitOp) for op in module.walk()) == 2
