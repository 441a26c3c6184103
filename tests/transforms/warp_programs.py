"""Random AMD programs with LDS traffic and random stage borders (loops, flat runs, back-to-back),
for the warp-pipeline property tests and benchmark."""

from __future__ import annotations

from hypothesis import strategies as st

T = 'memref<16x16xf16, "{}">'
G4 = 'memref<4x16x16xf16, "global">'
L2 = 'memref<2x16x16xf16, "LDS">'
SPACE = {"G": T.format("global"), "L": T.format("LDS"), "R": T.format("local")}

# (text with {placeholders}, operand kinds): g = a global input tile, o = a global output tile,
# l = an LDS tile (a buffer or a slot of the double buffer), r = a register tile.
OPS = [
    ("tile.load {g}, {l} : {G}, {L}", ["g", "l"]),
    ("tile.copy {l}, {r} : {L}, {R}", ["l", "r"]),
    ("tile.copy {r}, {l} : {R}, {L}", ["r", "l"]),
    ("tile.exp {r}, {r2} : {R}, {R}", ["r", "r2"]),
    ("tile.add {r}, {r2}, {r3} : {R}, {R}, {R}", ["r", "r2", "r3"]),
    ("tile.exp {l}, {l2} : {L}, {L}", ["l", "l2"]),
    ("tile.store {r}, {o} : {R}, {G}", ["r", "o"]),
]
LDS = ["%l0", "%l1"]
REGS = ["%r0", "%r1", "%r2"]


@st.composite
def op_lines(draw, iv: str | None, counter: list[int], ops=None) -> list[str]:
    """One tile op (with the slot/view lines its operands need), from ``ops`` (default OPS)."""
    text, kinds = draw(st.sampled_from(ops or OPS))
    values = dict(SPACE)
    lines = []
    for kind in kinds:
        counter[0] += 1
        name = f"%v{counter[0]}"
        if kind in ("g", "o"):
            index = iv if iv and draw(st.booleans()) else f"%c{draw(st.integers(0, 3))}"
            src = "%x" if kind == "g" else "%y"
            lines.append(f"{name} = tile.slot {src}[{index}] : {G4} -> {SPACE['G']}")
            values[kind] = name
        elif kind in ("l", "l2"):
            choice = draw(st.sampled_from(["buf", "slot"]))
            if choice == "buf":
                values[kind] = draw(st.sampled_from(LDS))
            else:
                index = draw(st.sampled_from(["%c0", "%c1"] + ([f"{iv}m", f"{iv}n"] if iv else [])))
                lines.append(f"{name} = tile.slot %d[{index}] : {L2} -> {SPACE['L']}")
                values[kind] = name
            values["L"] = SPACE["L"]
        else:
            values[kind] = draw(st.sampled_from(REGS))
    values.setdefault("l2", values.get("l", LDS[0]))
    values.setdefault("r2", values.get("r", REGS[0]))
    values.setdefault("r3", REGS[2])
    return lines + [text.format(**values)]


@st.composite
def stage_lines(draw, iv: str | None, counter: list[int], label: str, ops=None) -> list[str]:
    """A few ops (sometimes inside an scf.if), closed by a border."""
    lines = []
    for _ in range(draw(st.integers(0, 3))):
        body = draw(op_lines(iv, counter, ops))
        if draw(st.integers(0, 5)) == 0:
            cond = "%true" if draw(st.booleans()) else "%false"
            lines += [f"scf.if {cond} {{"] + ["  " + b for b in body] + ["}"]
        else:
            lines += body
    priority = draw(st.sampled_from(["", " {priority = 0 : i64}", " {priority = 1 : i64}"]))
    return lines + [f'tile.stage_border "{label}"{priority}']


@st.composite
def pipeline_lines(draw, counter: list[int], index: int, stages: int | None = None,
                   ops=None) -> list[str]:
    """A loop pipeline (0..3 trips) or a flat one, of 1..4 stages."""
    stages = draw(st.integers(1, 4)) if stages is None else stages
    if draw(st.booleans()):
        iv = f"%i{index}"
        trips = draw(st.integers(0, 3))
        body = [f"{iv}m = arith.remui {iv}, %c2 : index",
                f"{iv}1 = arith.addi {iv}, %c1 : index",
                f"{iv}n = arith.remui {iv}1, %c2 : index"]
        for s in range(stages):
            body += draw(stage_lines(iv, counter, f"p{index}s{s}", ops))
        return [f"scf.for {iv} = %c0 to %c{trips} step %c1 {{"] + ["  " + b for b in body] + ["}"]
    lines = []
    for s in range(stages):
        lines += draw(stage_lines(None, counter, f"p{index}s{s}", ops))
    return lines


@st.composite
def warp_programs(draw) -> str:
    """A function: some ops, one to three pipelines (often back to back), some ops."""
    counter = [0]
    body = []
    for _ in range(draw(st.integers(0, 2))):
        body += draw(op_lines(None, counter))
    for index in range(draw(st.integers(1, 3))):
        body += draw(pipeline_lines(counter, index))
        if draw(st.integers(0, 3)) == 0:
            body += draw(op_lines(None, counter))
    for _ in range(draw(st.integers(0, 2))):
        body += draw(op_lines(None, counter))
    return program(body)


@st.composite
def small_warp_programs(draw) -> str:
    """One pipeline of two or three stages, an op before and after it."""
    counter = [0]
    body = draw(op_lines(None, counter))
    body += draw(pipeline_lines(counter, 0, draw(st.integers(2, 3))))
    return program(body + draw(op_lines(None, counter)))


@st.composite
def lds_programs(draw, ops=None) -> str:
    """Straight-line code and loops (0..3 trips) of tile ops from ``ops`` (default OPS), no
    borders and no sync (insert-sync's input)."""
    counter, body = [0], []
    for index in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            iv = f"%i{index}"
            inner = [f"{iv}m = arith.remui {iv}, %c2 : index",
                     f"{iv}1 = arith.addi {iv}, %c1 : index",
                     f"{iv}n = arith.remui {iv}1, %c2 : index"]
            for _ in range(draw(st.integers(1, 5))):
                inner += draw(op_lines(iv, counter, ops))
            trips = draw(st.integers(0, 3))
            body += [f"scf.for {iv} = %c0 to %c{trips} step %c1 {{"] + ["  " + x for x in inner]
            body += ["}"]
        else:
            for _ in range(draw(st.integers(1, 4))):
                body += draw(op_lines(None, counter, ops))
    return program(body)


def program(body: list[str]) -> str:
    header = [f'func.func @k(%x: {G4}, %y: {G4}) {{', "  %true = arith.constant true",
              "  %false = arith.constant false"]
    header += [f"  %c{i} = arith.constant {i} : index" for i in range(4)]
    header += [f"  {name} = memref.alloc() : {SPACE['L']}" for name in LDS]
    header += [f"  %d = memref.alloc() : {L2}"]
    header += [f"  {name} = memref.alloc() : {SPACE['R']}" for name in REGS]
    return "\n".join(header + ["  " + line for line in body] + ["  func.return", "}"]) + "\n"
