"""Value sets of index expressions (ir/affine.py ``index_values``): what the verifier checks
event-id operands with. Each set is compared with the values the simulator's lowering computes
when it runs the loop."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tilesched.ir import parse_text
from tilesched.ir.affine import index_values

PROGRAM = """func.func @k(%n: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lb = arith.constant {lb} : index
  %ub = arith.constant {ub} : index
  %st = arith.constant {step} : index
  %a = arith.constant {a} : index
  %c = arith.constant {c} : index
  %m = arith.constant {m} : index
  %base = arith.constant {base} : index
  scf.for %i = %lb to {upper} step %st {{
    %ai = arith.muli %a, %i : index
    %x = arith.addi %ai, %c : index
    %r = arith.{rem} %x, %m : index
    %v = arith.addi %r, %base : index
    func.call @use(%v) : (index) -> ()
  }}
  func.return
}}
func.func private @use(index)
"""


def _value(module):
    return next(op for op in module.walk() if op.name == "arith.addi"
                and op.results[0].name_hint == "v").results[0]


@settings(max_examples=60, deadline=None)
@given(lb=st.integers(-5, 5), trips=st.integers(0, 30), step=st.integers(1, 4),
       a=st.integers(-3, 3), c=st.integers(-4, 9), m=st.integers(1, 5), base=st.integers(0, 6),
       rem=st.sampled_from(["remui", "remsi"]))
def test_base_plus_affine_mod_n_takes_exactly_the_values_the_loop_computes(
        lb, trips, step, a, c, m, base, rem):
    ub = lb + trips * step
    text = PROGRAM.format(lb=lb, ub=ub, step=step, a=a, c=c, m=m, base=base, rem=rem,
                          upper="%ub")
    found = index_values(_value(parse_text(text, "k.mlir")))

    def remainder(x):
        if rem == "remui":
            return x % m
        q = abs(x) // m
        return x - m * (q if x >= 0 else -q)

    computed = {remainder(a * i + c) + base for i in range(lb, ub, step)}
    assert found is not None and computed <= found
    if rem == "remui" or min((a * i + c for i in range(lb, ub, step)), default=0) >= 0:
        assert found == computed  # exact when the residues are known


def test_a_long_loop_is_bounded_by_its_residues_and_an_unknown_bound_by_the_modulus():
    long = PROGRAM.format(lb=0, ub=10**9, step=1, a=1, c=1, m=2, base=4, rem="remui", upper="%ub")
    assert index_values(_value(parse_text(long, "k.mlir"))) == {4, 5}
    unknown = PROGRAM.format(lb=0, ub=0, step=1, a=2, c=1, m=4, base=0, rem="remui", upper="%n")
    assert index_values(_value(parse_text(unknown, "k.mlir"))) == {1, 3}
    signed = PROGRAM.format(lb=0, ub=0, step=1, a=1, c=0, m=3, base=0, rem="remsi", upper="%n")
    assert index_values(_value(parse_text(signed, "k.mlir"))) == {0, 1, 2}  # i >= 0 only grows


def test_unbounded_values_are_none():
    text = PROGRAM.format(lb=0, ub=10**9, step=1, a=1, c=1, m=2, base=4, rem="remui", upper="%ub")
    module = parse_text(text, "k.mlir")
    loop = next(op for op in module.walk() if op.name == "scf.for")
    assert index_values(loop.body.block.args[0]) is None  # 10^9 values
    argument = next(op for op in module.walk() if op.name == "func.func").body.block.args[0]
    assert index_values(argument) is None
