"""Run one simulation in this process and print what it cost as JSON (used by bench_sim.py).

``python sim_probe.py FILE TARGET [--full] [--arg n=V]``: parse and verify FILE, lower and simulate
it as ``tilesched sim`` does; print seconds (parse+verify, simulation), peak resident memory of
this process (MB, ``getrusage``; includes Python and the imports), the CPU seconds of the
simulation beside its wall-clock seconds (on a loaded machine CPU time is the steadier figure),
and the result's key figures.
"""

from __future__ import annotations

import json
import resource
import sys
import time


def main(argv: list[str]) -> None:
    path, target_name = argv[0], argv[1]
    full = "--full" in argv
    max_ops = None  # --max-ops=N: refuse as `tilesched sim` does (default: never)
    for a in argv[2:]:
        if a.startswith("--max-ops="):
            max_ops = int(a.split("=", 1)[1])
    args = dict(a.split("=", 1) for a in argv[2:] if "=" in a and not a.startswith("--"))
    from tilesched.commands.common import load_verified
    from tilesched.sim.code.stream import stream_module
    from tilesched.sim.engine.engine import Engine
    from tilesched.sim.run import FullRun, run_engine
    from tilesched.target import load_target

    base_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    target = load_target(target_name)
    start = time.perf_counter()
    module = load_verified(path, target)
    parsed, cpu = time.perf_counter(), time.process_time()
    values = {k: int(v) for k, v in args.items()}
    from tilesched.diagnostics import TileschedError
    try:
        if full:  # as `tilesched sim --full` runs it (the compiled core when it is installed)
            result = FullRun(lambda: stream_module(module, target, values, max_ops=max_ops)).run()
        else:
            result = run_engine(Engine(stream_module(module, target, values, max_ops=max_ops),
                                       steady=True))
    except TileschedError as refused:  # --max-ops: how long it took to say so
        done, cpu = time.perf_counter(), time.process_time() - cpu
        print(json.dumps({"parse_s": parsed - start, "simulate_s": done - parsed, "cpu_s": cpu,
                          "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                          "import_mb": base_mb, "error": str(refused)}))
        return
    done, cpu = time.perf_counter(), time.process_time() - cpu
    print(json.dumps({
        "deadlock": result.deadlock is not None, "races": len(result.races),
        "violations": sorted({v.kind for v in result.violations}),
        "parse_s": parsed - start, "simulate_s": done - parsed, "cpu_s": cpu,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "import_mb": base_mb, "cycles": result.cycles, "ok": result.ok,
        "ops_simulated": result.ops_simulated, "ops_represented": result.ops_represented,
        "steady_state": result.steady_state}))


if __name__ == "__main__":
    main(sys.argv[1:])
