"""Hand-written MLIR kernels per target, correct and deliberately broken, through `tilesched sim`.

Each kernel is written in the generic form of DESIGN.md §2 for sync ops, as kernels from outside
the project are. The broken variants drop or alter one piece of synchronization.
"""

from __future__ import annotations

import json

import pytest

from tilesched.cli import main

GM = "memref<32x256xf16, \"GM\">"
GMB = "memref<256x32xf16, \"GM\">"
T16 = {"GM": "memref<32x32xf16, \"GM\">", "L1": "memref<32x32xf16, \"L1\">",
       "L0A": "memref<32x32xf16, \"L0A\">", "L0B": "memref<32x32xf16, \"L0B\">"}


def _flag(kind: str, src: str, dst: str, event: int) -> str:
    return f'"sync.{kind}"() {{src = "{src}", dst = "{dst}", event = {event} : i64}} : () -> ()'


def _slot(name: str, buf: str, space: str, index: str) -> str:
    whole = f'memref<2x32x32xf16, "{space}">'
    return f'{name} = "tile.slot"({buf}, {index}) : ({whole}, index) -> {T16[space]}'


def ascend_kernel(back_edge=True, forward=True, fix_event=0, double_set=False,
                  missing_set=False) -> str:
    """Double-buffered GEMM over K (two K blocks per iteration, one per slot and event id)."""
    body = ["%i2 = arith.muli %i, %c2 : index"]
    for s in (0, 1):
        body += [
            f"%k{s} = arith.addi %i2, %c{s} : index",
            f"%off{s} = arith.muli %k{s}, %c32 : index",
            f'%av{s} = "tile.view"(%a, %c0, %off{s}) <{{sizes = array<i64: 32, 32>}}> : ({GM}, index, index) -> {T16["GM"]}',
            f'%bv{s} = "tile.view"(%b, %off{s}, %c0) <{{sizes = array<i64: 32, 32>}}> : ({GMB}, index, index) -> {T16["GM"]}',
            _slot(f"%a1{s}", "%a_l1", "L1", f"%c{s}"), _slot(f"%b1{s}", "%b_l1", "L1", f"%c{s}"),
            _slot(f"%a0{s}", "%a_l0", "L0A", f"%c{s}"), _slot(f"%b0{s}", "%b_l0", "L0B", f"%c{s}"),
            _flag("wait_flag", "MTE1", "MTE2", s) if back_edge else "",
            f'tile.load %av{s}, %a1{s} : {T16["GM"]}, {T16["L1"]}',
            f'tile.load %bv{s}, %b1{s} : {T16["GM"]}, {T16["L1"]}',
            _flag("set_flag", "MTE2", "MTE1", s), _flag("wait_flag", "MTE2", "MTE1", s),
            _flag("wait_flag", "M", "MTE1", s) if back_edge else "",
            f'tile.copy %a1{s}, %a0{s} : {T16["L1"]}, {T16["L0A"]}',
            f'tile.copy %b1{s}, %b0{s} : {T16["L1"]}, {T16["L0B"]}',
            _flag("set_flag", "MTE1", "MTE2", s) if back_edge else "",
            _flag("set_flag", "MTE1", "M", s) if forward else "",
            _flag("wait_flag", "MTE1", "M", s) if forward else "",
            f'tile.matmul %a0{s}, %b0{s}, %acc {{accumulate}} : {T16["L0A"]}, {T16["L0B"]}, memref<32x32xf32, "L0C">',
            _flag("set_flag", "M", "MTE1", s) if back_edge else "",
        ]
    prime = [_flag("set_flag", src, dst, s) for src, dst in (("MTE1", "MTE2"), ("M", "MTE1"))
             for s in (0, 1)] if back_edge else []
    drain = [_flag("wait_flag", src, dst, s) for src, dst in (("MTE1", "MTE2"), ("M", "MTE1"))
             for s in (0, 1)] if back_edge else []
    fix = [] if missing_set else [_flag("set_flag", "M", "FIX", fix_event)]
    if double_set:
        fix.append(_flag("set_flag", "M", "FIX", fix_event))
    fix.append(_flag("wait_flag", "M", "FIX", fix_event))
    return _module(
        f'%a: {GM}, %b: {GMB}, %c: memref<32x32xf32, "GM">, %n: index',
        ['%a_l1 = memref.alloc() : memref<2x32x32xf16, "L1">',
         '%b_l1 = memref.alloc() : memref<2x32x32xf16, "L1">',
         '%a_l0 = memref.alloc() : memref<2x32x32xf16, "L0A">',
         '%b_l0 = memref.alloc() : memref<2x32x32xf16, "L0B">',
         '%acc = memref.alloc() : memref<32x32xf32, "L0C">',
         "%half = arith.divui %n, %c2 : index", *prime],
        body,
        [*drain, *fix, 'tile.store %acc, %c : memref<32x32xf32, "L0C">, memref<32x32xf32, "GM">'])


def cuda_kernel(pending=1, commit=True) -> str:
    """Two-stage cp.async loop: prefetch block k+1 while block k is multiplied."""
    g = 'memref<32x32xf16, "global">'
    s = 'memref<32x32xf16, "shared">'
    r = 'memref<32x32xf16, "local">'
    acc = 'memref<32x32xf32, "local">'
    whole = 'memref<2x32x32xf16, "shared">'

    def load(k: str, slot: str, tag: str) -> list[str]:
        return [f"%off{tag} = arith.muli {k}, %c32 : index",
                f'%v{tag} = "tile.view"(%a, %c0, %off{tag}) <{{sizes = array<i64: 32, 32>}}> : (memref<32x256xf16, "global">, index, index) -> {g}',
                f'%s{tag} = "tile.slot"(%sa, {slot}) : ({whole}, index) -> {s}',
                f"tile.load %v{tag}, %s{tag} : {g}, {s}"]

    commit_op = ['"sync.commit_group"() {queue = 0 : i64} : () -> ()'] if commit else []
    body = ["%next = arith.addi %i, %c1 : index",
            "%more = arith.cmpi ult, %next, %n : index",
            "%ns = arith.remui %next, %c2 : index",
            "scf.if %more {", *load("%next", "%ns", "n"), "}",
            *commit_op,
            f'"sync.wait_group"() {{queue = 0 : i64, pending = {pending} : i64}} : () -> ()',
            "%cs = arith.remui %i, %c2 : index",
            f'%cur = "tile.slot"(%sa, %cs) : ({whole}, index) -> {s}',
            f"tile.copy %cur, %ra : {s}, {r}",
            f'tile.matmul %ra, %w, %accv {{accumulate}} : {r}, {r}, {acc}']
    return _module(
        '%a: memref<32x256xf16, "global">, %c: memref<32x32xf32, "global">, %n: index',
        [f'%sa = memref.alloc() : {whole}', f"%ra = memref.alloc() : {r}",
         f"%w = memref.alloc() : {r}", f"%accv = memref.alloc() : {acc}",
         f"tile.fill %w {{value = 1.0 : f16}} : {r}", f"tile.fill %accv {{value = 0.0 : f32}} : {acc}",
         *load("%c0", "%c0", "p"), *commit_op],
        body, [f'tile.store %accv, %c : {acc}, memref<32x32xf32, "global">'], upper="%n")


def amd_kernel(first_local=True, second_barrier=True) -> str:
    """Two issuer groups stage each W block through one LDS buffer, then multiply from registers."""
    g = 'memref<32x32xf16, "global">'
    lds = 'memref<32x32xf16, "LDS">'
    r = 'memref<32x32xf16, "local">'
    acc = 'memref<32x32xf32, "local">'
    first = "sync.barrier local" if first_local else "sync.barrier"
    body = ["%off = arith.muli %i, %c32 : index",
            f'%v = "tile.view"(%w, %off, %c0) <{{sizes = array<i64: 32, 32>}}> : (memref<256x32xf16, "global">, index, index) -> {g}',
            f"tile.load %v, %lw : {g}, {lds}",
            first,
            f"tile.copy %lw, %rw : {lds}, {r}",
            '"sync.barrier"() {local} : () -> ()' if second_barrier else "",
            f"tile.matmul %ra, %rw, %accv {{accumulate}} : {r}, {r}, {acc}"]
    return _module(
        f'%x: {g}, %w: memref<256x32xf16, "global">, %c: memref<32x32xf32, "global">, %n: index',
        [f"%lw = memref.alloc() : {lds}", f"%ra = memref.alloc() : {r}", f"%rw = memref.alloc() : {r}",
         f"%accv = memref.alloc() : {acc}", f"tile.fill %accv {{value = 0.0 : f32}} : {acc}",
         f"tile.load %x, %ra : {g}, {r}"],
        body, [f'tile.store %accv, %c : {acc}, memref<32x32xf32, "global">'], upper="%n")


def _module(args: str, prologue: list[str], body: list[str], epilogue: list[str],
            upper: str = "%half") -> str:
    lines = ["builtin.module {", f"  func.func @kernel({args}) {{",
             "    %c0 = arith.constant 0 : index", "    %c1 = arith.constant 1 : index",
             "    %c2 = arith.constant 2 : index", "    %c32 = arith.constant 32 : index"]
    lines += [f"    {x}" for x in prologue if x]
    lines += [f"    scf.for %i = %c0 to {upper} step %c1 {{"]
    lines += [f"      {x}" for x in body if x]
    lines += ["    }"] + [f"    {x}" for x in epilogue if x] + ["    func.return", "  }", "}", ""]
    return "\n".join(lines)


def _sim(tmp_path, capsys, text: str, target: str, n: int = 8) -> tuple[int, dict]:
    path = tmp_path / "kernel.mlir"
    path.write_text(text)
    code = main(["sim", str(path), "--target", target, "--arg", f"n={n}", "--json"])
    return code, json.loads(capsys.readouterr().out)


def _kinds(report: dict) -> set[str]:
    return {v["kind"] for v in report["violations"]}


def test_ascend_correct(tmp_path, capsys):
    code, report = _sim(tmp_path, capsys, ascend_kernel(), "ascend-a2")
    assert code == 0, report
    assert report["cycles"] >= report["bound"] and report["sync_ops"] > 0


@pytest.mark.parametrize("target", ["ascend-a2", "ascend-910a"])
def test_ascend_event_id_at_limit(tmp_path, capsys, target):
    limit = 8 if target == "ascend-a2" else 4
    code, report = _sim(tmp_path, capsys, ascend_kernel(fix_event=limit), target)
    assert code == 1 and _kinds(report) == {"event-id-out-of-range"} and not report["races"]
    assert _sim(tmp_path, capsys, ascend_kernel(fix_event=limit - 1), target)[0] == 0


def test_ascend_missing_flag_is_a_race(tmp_path, capsys):
    code, report = _sim(tmp_path, capsys, ascend_kernel(forward=False), "ascend-a2")
    assert code == 1
    assert {r["buffer"] for r in report["races"]} == {"a_l0", "b_l0"}
    assert {(r["first"]["unit"], r["second"]["unit"]) for r in report["races"]} == {("MTE1", "M")}


def test_ascend_loop_carried_war_without_back_edge(tmp_path, capsys):
    code, report = _sim(tmp_path, capsys, ascend_kernel(back_edge=False), "ascend-a2")
    assert code == 1
    war = {(r["buffer"], r["first"]["op"], r["second"]["op"]) for r in report["races"]}
    # (``first`` is the side earlier in the source: the refill before the read it overwrites)
    assert ("a_l1", "tile.load", "tile.copy") in war and ("a_l0", "tile.copy", "tile.matmul") in war


def test_ascend_missing_set_deadlocks(tmp_path, capsys):
    code, report = _sim(tmp_path, capsys, ascend_kernel(missing_set=True), "ascend-a2")
    assert code == 1
    (blocked,) = report["deadlock"]["blocked"]
    assert blocked["agent"] == "FIX" and "M->FIX event 0" in blocked["waiting_for"]


def test_ascend_double_set(tmp_path, capsys):
    code, report = _sim(tmp_path, capsys, ascend_kernel(double_set=True), "ascend-a2")
    assert code == 1 and "double-set" in _kinds(report)


def test_cuda_correct_and_wrong_counts(tmp_path, capsys):
    assert _sim(tmp_path, capsys, cuda_kernel(pending=1), "cuda-sm80")[0] == 0
    assert _sim(tmp_path, capsys, cuda_kernel(pending=0), "cuda-sm80")[0] == 0
    code, report = _sim(tmp_path, capsys, cuda_kernel(pending=2), "cuda-sm80")
    assert code == 1 and {r["buffer"] for r in report["races"]} == {"sa"}
    race = report["races"][0]
    assert {race["first"]["unit"], race["second"]["unit"]} == {"ASYNC0", "T"}
    assert _sim(tmp_path, capsys, cuda_kernel(commit=False), "cuda-sm80")[0] == 1


def test_cuda_zero_trip_loop(tmp_path, capsys):
    code, report = _sim(tmp_path, capsys, cuda_kernel(), "cuda-sm80", n=0)
    assert code == 0 and report["cycles"] > 0


def test_amd_correct_and_broken(tmp_path, capsys):
    code, report = _sim(tmp_path, capsys, amd_kernel(), "amd-gfx950")
    assert code == 0, report
    code, report = _sim(tmp_path, capsys, amd_kernel(first_local=False), "amd-gfx950")
    assert code == 1 and "lw" in {r["buffer"] for r in report["races"]}
    # Without the second barrier a group's own copy LDS -> registers still completes before its
    # matmul reads the registers (per-wave s_waitcnt, DESIGN.md section 4): no race on %rw; but
    # the next iteration's load into %lw now overwrites what the other group may still be copying.
    code, report = _sim(tmp_path, capsys, amd_kernel(second_barrier=False), "amd-gfx950")
    assert code == 1
    races = {r["buffer"] for r in report["races"]}
    assert "lw" in races and not races & {"rw@low", "rw@high"}


@pytest.mark.parametrize(("make", "target"), [(ascend_kernel, "ascend-a2"), (cuda_kernel, "cuda-sm80"),
                                              (amd_kernel, "amd-gfx950")])
def test_correct_kernels_compute_what_they_mean(tmp_path, capsys, make, target):
    path = tmp_path / "k.mlir"
    path.write_text(make())
    assert main(["equiv", str(path), str(path), "--target", target, "--arg", "n=6"]) == 0
    capsys.readouterr()
