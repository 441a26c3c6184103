"""The reduced dependence relation keeps exactly the transitive closure of the full one."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.analysis.dependence import block_dependences
from tilesched.analysis.reduced_deps import reduced_dependences
from tilesched.ir import parse_text
from tilesched.ir.blocks import body_ops

T = 'memref<16x16xf32, "UB">'
B = 'memref<32x16xf32, "UB">'


def _closure(n: int, edges) -> set[tuple[int, int]]:
    succ = {i: set() for i in range(n)}
    for e in edges:
        succ[e.src].add(e.dst)
    reach = set()
    for start in range(n):
        stack, seen = list(succ[start]), set()
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(succ[node])
        reach |= {(start, node) for node in seen}
    return reach


@st.composite
def blocks(draw):
    lines = []
    for k in range(draw(st.integers(1, 25))):
        kind = draw(st.sampled_from(["unary", "binary", "call", "fill"]))
        operands = []
        for _ in range({"unary": 2, "binary": 3, "call": 1, "fill": 1}[kind]):
            if draw(st.booleans()):
                operands.append(draw(st.sampled_from(["%a", "%b", "%c"])))
            else:
                row = draw(st.sampled_from([0, 8, 16]))
                name = f"%v{k}_{len(operands)}"
                lines.append(f"{name} = tile.view %big[%c{row}, %c0] {{sizes = array<i64: 16, 16>}} "
                             f": {B} -> {T}")
                operands.append(name)
        types = ", ".join([T] * len(operands))
        if kind == "unary":
            lines.append(f"tile.exp {', '.join(operands)} : {types}")
        elif kind == "binary":
            lines.append(f"tile.add {', '.join(operands)} : {types}")
        elif kind == "fill":
            lines.append(f"tile.fill {operands[0]} {{value = 0.0 : f32}} : {T}")
        else:
            lines.append(f'tile.call {operands[0]} {{callee = "f"}} : {T}')
    return lines


@settings(max_examples=150, deadline=None)
@given(blocks())
def test_reduction_preserves_the_transitive_closure(lines):
    text = "func.func @k() {\n  %c0 = arith.constant 0 : index\n  %c8 = arith.constant 8 : index\n"
    text += "  %c16 = arith.constant 16 : index\n"
    text += "".join(f"  %{n} = memref.alloc() : {T}\n" for n in "abc")
    text += f"  %big = memref.alloc() : {B}\n"
    text += "".join(f"  {line}\n" for line in lines) + "  func.return\n}\n"
    func = next(iter(parse_text(text).body.block.ops))
    ops = [op for op in body_ops(func.body.block) if op.name.startswith("tile.")
           and op.name != "tile.view"]
    full, reduced = block_dependences(ops), reduced_dependences(ops)
    assert {(d.src, d.dst) for d in reduced} <= {(d.src, d.dst) for d in full}
    assert _closure(len(ops), reduced) == _closure(len(ops), full)
