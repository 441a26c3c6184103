"""insert-sync on random multi-buffered loop nests (2-4 slots, slot indices constant or
``(i + c) mod N``, nested loops and ifs, 2-6 units): race-, deadlock- and violation-free,
``equiv`` to the unsynchronized program, and never slower than the previous plan
(``insert-sync{legacy=true}``) on the same program. Rolled loops (every slot index
``(i + c) mod N``, so prefetches into a later iteration's slot): the same, and never slower
than the plan without rotating ids (``insert-sync{rolled=false}``)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tilesched.ir import parse_text, print_module
from tilesched.sim.functional import equivalent
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.target import load_target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

T = "memref<16x16x{e}, \"{s}\">"
RING = "memref<{n}x16x16x{e}, \"{s}\">"
# (text, the rings it uses: name -> (element type, space)); {a}/{b}/{c} are slot views
OPS = [
    ("tile.load {g16}, {l1} : {G16}, {L1}", "MTE2"),
    ("tile.copy {l1}, {l0a} : {L1}, {L0A}", "MTE1"),
    ("tile.copy {l1}, {l0b} : {L1}, {L0B}", "MTE1"),
    ("tile.matmul {l0a}, {l0b}, %acc {{accumulate}} : {L0A}, {L0B}, {L0C}", "M"),
    ("tile.store %acc, {o32} : {L0C}, {G32}", "FIX"),
    ("tile.load {g32}, {ub} : {G32}, {UB}", "MTE2"),
    ("tile.exp {ub}, {ub2} : {UB}, {UB}", "V"),
    ("tile.add {ub}, {ub2}, {ub2} : {UB}, {UB}, {UB}", "V"),
    ("tile.store {ub2}, {o32} : {UB}, {G32}", "MTE3"),
]
RINGS = {"l1": ("f16", "L1"), "l0a": ("f16", "L0A"), "l0b": ("f16", "L0B"),
         "ub": ("f32", "UB"), "ub2": ("f32", "UB")}


class _Names:
    def __init__(self):
        self.n = 0

    def fresh(self, prefix: str) -> str:
        self.n += 1
        return f"%{prefix}{self.n}"


@st.composite
def nests(draw):
    """A function body: loops (0-4 trips, nested up to 2) and ifs over multi-buffered ops."""
    slots = draw(st.integers(2, 4))
    ops = draw(st.lists(st.sampled_from(OPS), min_size=2, max_size=6))
    names = _Names()
    body = _block(draw, ops, slots, names, depth=0, ivs=[])
    return slots, body


def _block(draw, ops, slots, names, depth, ivs):
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["op", "op", "op"] + (["for", "for", "if"] if depth < 2 else [])))
        if kind == "op":
            lines += _op(draw, ops, slots, names, ivs)
        elif kind == "for":
            iv = f"%i{depth}"
            lines.append(f"scf.for {iv} = %c0 to %c{draw(st.integers(0, 4))} step %c1 {{")
            lines += ["  " + x for x in _block(draw, ops, slots, names, depth + 1, ivs + [iv])]
            lines.append("}")
        else:
            lines.append(f"scf.if {'%true' if draw(st.booleans()) else '%false'} {{")
            lines += ["  " + x for x in _block(draw, ops, slots, names, depth + 1, ivs)]
            if draw(st.booleans()):
                lines.append("} else {")
                lines += ["  " + x for x in _block(draw, ops, slots, names, depth + 1, ivs)]
            lines.append("}")
    return lines


def _op(draw, ops, slots, names, ivs, rolled=False):
    text, _ = draw(st.sampled_from(ops))
    lines, values = [], {
        "G16": T.format(e="f16", s="GM"), "G32": T.format(e="f32", s="GM"),
        "L1": T.format(e="f16", s="L1"), "L0A": T.format(e="f16", s="L0A"),
        "L0B": T.format(e="f16", s="L0B"), "L0C": T.format(e="f32", s="L0C"),
        "UB": T.format(e="f32", s="UB")}
    for ring, (elem, space) in RINGS.items():
        if "{" + ring + "}" not in text:
            continue
        index = f"%c{draw(st.integers(0, slots - 1))}"
        if ivs and (rolled or draw(st.booleans())):  # (i + c) mod N
            shifted, index_name = names.fresh("s"), names.fresh("k")
            shift = draw(st.integers(0, 1 if rolled else slots - 1))  # rolled: prefetches
            lines.append(f"{shifted} = arith.addi {draw(st.sampled_from(ivs))}, "
                         f"%c{shift} : index")
            lines.append(f"{index_name} = arith.remui {shifted}, %cN : index")
            index = index_name
        view = names.fresh("v")
        ring_type = RING.format(n=slots, e=elem, s=space)
        lines.append(f"{view} = tile.slot %{ring}[{index}] : {ring_type} -> {T.format(e=elem, s=space)}")
        values[ring] = view
    for arg, (source, elem) in {"g16": ("%x16", "f16"), "g32": ("%x32", "f32"),
                                "o32": ("%y32", "f32")}.items():
        if "{" + arg + "}" in text:
            view = names.fresh("g")
            index = draw(st.sampled_from(ivs + ["%c0", "%c1"])) if ivs else "%c0"
            lines.append(f"{view} = tile.slot {source}[{index}] : memref<8x16x16x{elem}, \"GM\"> "
                         f"-> {T.format(e=elem, s='GM')}")
            values[arg] = view
    return lines + [text.format(**values)]


def _program(slots: int, body: list[str]) -> str:
    args = ('%x16: memref<8x16x16xf16, "GM">, %x32: memref<8x16x16xf32, "GM">, '
            '%y32: memref<8x16x16xf32, "GM">')
    lines = [f"func.func @k({args}) {{", "  %true = arith.constant true",
             "  %false = arith.constant false", f"  %cN = arith.constant {slots} : index"]
    lines += [f"  %c{i} = arith.constant {i} : index" for i in range(8)]
    for ring, (elem, space) in RINGS.items():
        lines.append(f"  %{ring} = memref.alloc() : {RING.format(n=slots, e=elem, s=space)}")
    lines.append(f"  %acc = memref.alloc() : {T.format(e='f32', s='L0C')}")
    lines += ["  " + x for x in body]
    return "\n".join(lines + ["  func.return", "}"]) + "\n"


def _synced(text: str, pipeline: str, target):
    module = parse_text(text, "random.mlir")
    run_pipeline(module, parse_pass_pipeline(pipeline), TileContext(target))
    return parse_text(print_module(module), "synced.mlir")


def _assert_correct_and_not_slower(text: str, baseline: str, slack_ops: tuple[str, ...]) -> None:
    """insert-sync's output of ``text`` is race-, deadlock- and violation-free, equivalent, and
    no slower than the ``baseline`` pipeline's beyond one issue slot per op named by
    ``slack_ops`` (flags, and the arith of their ids, are issued even where no work follows: a
    zero-trip loop's presets and drains, an empty inner loop's entry waits)."""
    target = load_target("ascend-a2")
    new = _synced(text, "insert-sync", target)
    result = simulate(lower_module(new, target))
    assert result.ok, (print_module(new), result.races, result.deadlock, result.violations)
    verdict = equivalent(lower_module(parse_text(text, "o.mlir"), target), lower_module(new, target))
    assert verdict.equivalent, (print_module(new), verdict.mismatches, verdict.problems)
    old = simulate(lower_module(_synced(text, baseline, target), target))
    slack = sum(1 for op in new.walk() if op.name.startswith(slack_ops))
    assert result.cycles <= old.cycles + slack * target.issue_cycles, (text, result.cycles, old.cycles)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nests())
def test_multi_buffered_nests_are_correct_and_never_slower_than_the_old_plan(nest):
    slots, body = nest
    _assert_correct_and_not_slower(_program(slots, body), "insert-sync{legacy=true}",
                                   ("sync.set_flag", "sync.wait_flag"))


@st.composite
def rolled_loops(draw):
    """Work before a rolled loop (0-7 trips) whose every slot index is ``(i + c) mod N``."""
    slots = draw(st.integers(2, 4))
    chains = [OPS[:4], OPS[5:], st.lists(st.sampled_from(OPS), min_size=2, max_size=6)]
    ops = draw(st.sampled_from(chains))  # a load -> compute chain, or any ops
    ops = ops if isinstance(ops, list) else draw(ops)
    names = _Names()
    body = [x for _ in range(draw(st.integers(0, 2)))
            for x in _op(draw, ops, slots, names, [])]
    body.append(f"scf.for %i0 = %c0 to %c{draw(st.integers(0, 7))} step %c1 {{")
    body += ["  " + x for _ in range(draw(st.integers(1, 5)))
             for x in _op(draw, ops, slots, names, ["%i0"], rolled=True)]
    body.append("}")
    return slots, body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rolled_loops())
def test_rolled_loops_are_correct_and_never_slower_than_in_iteration_flags(nest):
    slots, body = nest
    _assert_correct_and_not_slower(_program(slots, body), "insert-sync{rolled=false}",
                                   ("sync.set_flag", "sync.wait_flag", "arith."))
