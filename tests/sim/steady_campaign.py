"""A long random campaign of the nested-loop differential test (steady == full; issue 24).

    nice -n 10 python tests/sim/steady_campaign.py --seeds 1 2 3 --minutes 20

runs ``test_sim_steady_nested.check_nest`` on random nests (``nested_programs.nests``) of the
three families, one hypothesis run per seed, each for at most ``--minutes`` of CPU time, and
prints its size: programs drawn, simulated in both modes, refused by their sync pass, with a
loop extrapolated, with two nested loops both extrapolated, faulty ones, and every disagreement
(hypothesis shrinks a disagreement to a small nest and prints it).
"""

from __future__ import annotations

import argparse
import pathlib
import signal
import sys
import time
from collections import Counter

sys.path[:0] = [str(pathlib.Path(__file__).parent), str(pathlib.Path(__file__).parent / "engine")]

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from nested_programs import nests  # noqa: E402
from test_sim_steady_nested import check_nest  # noqa: E402

FIRST_ERROR = pathlib.Path("steady_campaign_first_error.txt")


class _OutOfTime(Exception):
    pass


def campaign(seed_value: int, minutes: float, stats: Counter) -> str | None:
    """One seed; returns the failure (shrunk by hypothesis) or ``None``."""
    deadline = time.process_time() + minutes * 60

    @seed(seed_value)
    @settings(max_examples=10 ** 6, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(nests())
    def run(nest):
        if time.process_time() > deadline:
            raise _OutOfTime
        stats["drawn"] += 1
        try:
            steady = check_nest(nest)
        except AssertionError:
            stats["disagreements seen (before shrinking)"] += 1
            raise
        except Exception:
            # an internal error: keep the first unshrunk example, in case shrinking runs out of time
            stats["internal errors seen (before shrinking)"] += 1
            if not FIRST_ERROR.exists():
                FIRST_ERROR.write_text(repr(nest) + "\n")
            raise
        if steady is None:
            stats["refused by the sync pass"] += 1
            return
        stats["simulated in both modes"] += 1
        stats[f"family {nest.family} / {nest.passes}"] += 1
        stats[f"depth {len(nest.trips)}"] += 1
        loops = {entry["loop"] for entry in steady.steady_state}
        stats["a loop extrapolated"] += bool(loops)
        stats["two or more nested loops extrapolated"] += len(loops) >= 2
        stats["faulty (race, deadlock or violation)"] += not steady.ok
        stats["deadlock"] += steady.deadlock is not None
        stats["ops represented"] += steady.ops_represented

    try:
        run()
    except _OutOfTime:
        return None
    except Exception as failure:  # noqa: BLE001 - report it and go on with the next seed
        return f"{type(failure).__name__}: {failure}"
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--minutes", type=float, default=10.0, help="CPU minutes per seed")
    args = parser.parse_args(argv)
    stats: Counter = Counter()
    failures = []
    start = time.process_time()
    signal.signal(signal.SIGTERM, _stop)
    done = []
    try:
        for value in args.seeds:
            found = campaign(value, args.minutes, stats)
            done.append(value)
            print(f"seed {value}: {'OK' if found is None else 'FAILED'} after "
                  f"{(time.process_time() - start) / 60:.1f} CPU minutes in all", flush=True)
            if found is not None:
                failures.append((value, found))
                print(found, flush=True)
            _summary(done, start, stats, failures)
    except KeyboardInterrupt:  # SIGINT / SIGTERM: say how far it got
        print("stopped", flush=True)
        _summary(done + ["(interrupted)"], start, stats, failures)
    return 1 if failures else 0


def _stop(signum, frame):
    raise KeyboardInterrupt


def _summary(seeds, start: float, stats: Counter, failures: list) -> None:
    print(f"campaign: seeds {seeds}, {(time.process_time() - start) / 60:.1f} CPU minutes")
    for key, value in sorted(stats.items()):
        print(f"  {key}: {value:,}")
    print(f"  failures: {len(failures)}", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
