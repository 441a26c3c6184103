"""insert-sync around func.call, judged by the simulator: random Ascend programs whose kernel
calls a random callee (at the top, in a loop, in an if) come out race-, deadlock- and
violation-free and equivalent to the unsynchronized program. A loop whose only work is a call
was left unsynchronized before (analysis/units.py: a call counts as unit work now)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_insert_sync import ALLOCS, SPACES, _check, _program, statements

_CALL = "func.call @part({args}) : ({types}) -> ()"
_GLOBALS = [("%x16", 'memref<4x16x16xf16, "GM">'), ("%x32", 'memref<4x16x16xf32, "GM">'),
            ("%y32", 'memref<4x16x16xf32, "GM">'), ("%y16", 'memref<4x16x16xf16, "GM">')]


def _callee(body: list[str]) -> str:
    """``@part`` over the kernel's global buffers and allocations (as arguments), running
    ``body`` (statements of the same templates, with constants of its own)."""
    params = _GLOBALS + [(name, SPACES["ascend"][kind]) for name, kind in ALLOCS["ascend"]]
    head = [f"func.func @part({', '.join(f'{n}: {t}' for n, t in params)}) {{",
            "  %true = arith.constant true", "  %false = arith.constant false"]
    head += [f"  %c{i} = arith.constant {i} : index" for i in range(4)]
    lines = head + ["  " + line for chunk in body for line in chunk.split("\n")]
    return "\n".join(lines + ["  func.return", "}"]) + "\n"


def _call_line() -> str:
    params = _GLOBALS + [(name, SPACES["ascend"][kind]) for name, kind in ALLOCS["ascend"]]
    return _CALL.format(args=", ".join(n for n, _ in params),
                        types=", ".join(t for _, t in params))


@st.composite
def calling_programs(draw) -> str:
    before = draw(statements("ascend"))
    after = draw(statements("ascend"))
    call = _call_line()
    where = draw(st.sampled_from(["top", "loop", "loop-only", "if"]))
    if where == "top":
        middle = [call]
    elif where == "if":
        middle = ["scf.if %true {", "  " + call, "}"]
    else:
        trips = draw(st.integers(1, 3))
        inner = [call] if where == "loop-only" else [*draw(statements("ascend", 1, "%iq")), call]
        middle = [f"scf.for %iq = %c0 to %c{trips} step %c1 {{",
                  *["  " + line for chunk in inner for line in chunk.split("\n")], "}"]
    kernel = _program("ascend", before + middle + after)
    return kernel + _callee(draw(statements("ascend")))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calling_programs(), st.sampled_from(["ascend-a2", "two-ids"]))
def test_random_programs_with_calls_are_race_free_and_equivalent(text, target):
    _check(text, target)
