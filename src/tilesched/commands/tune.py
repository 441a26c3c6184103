"""``tilesched tune FILE... [--target T]... [--budget N] [--jobs N | --ray [ADDRESS]]
[--results OUT] [--plot OUT.png]``: search pass pipelines and options per kernel (DESIGN.md §2).

Exit status: 0 when every kernel has a correct best pipeline; 1 when some kernel has no
candidate that is race-, deadlock- and violation-free and equivalent to it; 2 on bad input
(unknown file or target, a kernel that does not verify, a results file of another search
space); 130 when interrupted (every finished trial is kept in the results file).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import pathlib
import sys

from tilesched.commands.common import add_input_limit_option
from tilesched.diagnostics import TileschedError
from tilesched.output_files import check_output, write_replacing
from tilesched.target import builtin_target_names


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``tune`` subcommand."""
    parser = sub.add_parser(
        "tune", help="search pass pipelines and options for the fewest simulated cycles",
        description="Search the pipelines the passes declare (each pass on or off, its tunable "
                    "options) for each kernel and target. Every candidate is simulated, checked "
                    "for races, deadlocks and violations and for equivalence with the kernel; "
                    "the fastest correct one is printed. See docs/tune.md.")
    parser.add_argument("files", nargs="+", metavar="FILE", help=".mlir kernels ('-' for standard input)")
    parser.add_argument("--target", action="append", metavar="T",
                        help="target(s): repeat or separate with commas (default: ascend-a2; "
                             + ", ".join(builtin_target_names()) + ", or a .toml path)")
    parser.add_argument("--budget", type=int, default=64, metavar="N",
                        help="distinct candidates to evaluate per kernel and target, the default "
                             "pipeline included (default 64)")
    parser.add_argument("--sampler", default="tpe", choices=("tpe", "grid", "random"),
                        help="Optuna sampler: tpe (default), grid (every candidate once; small "
                             "spaces), random")
    parser.add_argument("--seed", type=int, default=0, help="sampler seed (default 0)")
    parser.add_argument("--batch", type=int, default=8, metavar="B",
                        help="trials proposed at a time per kernel; part of what makes a search "
                             "reproducible (default 8)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N",
                        help="local worker processes (default: the number of cores; 1 evaluates "
                             "in this process)")
    parser.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                        help="evaluate on Ray: a local runtime of --jobs CPUs, or the cluster at "
                             "ADDRESS (e.g. 10.0.0.5:6379; needs 'pip install tilesched[ray]')")
    parser.add_argument("--results", metavar="OUT",
                        help="keep every trial in OUT (.parquet or .csv); a rerun resumes")
    parser.add_argument("--plot", metavar="OUT.png", help="write best vs baseline and convergence")
    parser.add_argument("--arg", action="append", metavar="NAME=VALUE", default=[],
                        help="value of a scalar function argument (repeatable)")
    add_input_limit_option(parser)
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per kernel and target: best, baseline, trials")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tilesched.report.tune_report import tune_json, tune_table
    from tilesched.tune.results import ResultsStore
    from tilesched.tune.runners import make_runner
    from tilesched.tune.search import run_search, start_jobs
    from tilesched.tune.summary import summarize

    settings, jobs = _settings(args), _jobs(args)
    _check_outputs(args)
    store = ResultsStore(args.results)
    tune_jobs = _make_jobs(args, store)
    start_jobs(tune_jobs, settings)
    runner = make_runner(jobs, args.ray)
    progress = _Progress(tune_jobs, settings, quiet=args.json or not sys.stderr.isatty())
    try:
        run_search(tune_jobs, settings, runner, store, progress.update)
    except KeyboardInterrupt:
        progress.stop()
        saved = f"saved in {args.results}; rerun the same command to resume" if args.results \
            else "not saved (no --results file)"
        print(f"interrupted: {store.added} new evaluation(s) {saved}", file=sys.stderr)
        return 130
    finally:
        progress.stop()
        runner.close()
    summaries = [summarize(job) for job in tune_jobs]
    if args.json:
        for summary in summaries:
            print(json.dumps(tune_json(summary)))
    else:
        heading = (f"tilesched tune: {len({j.kernel.name for j in tune_jobs})} kernel(s) x "
                   f"{len({j.kernel.target_name for j in tune_jobs})} target(s), sampler "
                   f"{settings.sampler}, seed {settings.seed}, budget {settings.budget}, batch "
                   f"{settings.batch}, {runner.workers} worker(s)"
                   + (" on Ray" if args.ray else ""))
        print(tune_table(summaries, heading), end="")
    if args.plot:
        _write_plot(summaries, args.plot)
    return 0 if all(s.best is not None for s in summaries) else 1


def _settings(args: argparse.Namespace):
    from tilesched.tune.search import Settings

    for name in ("budget", "batch"):
        if getattr(args, name) < 1:
            raise TileschedError(f"--{name} must be >= 1, got {getattr(args, name)}")
    if args.seed < 0:
        raise TileschedError(f"--seed must be >= 0, got {args.seed}")
    return Settings(budget=args.budget, sampler=args.sampler, seed=args.seed, batch=args.batch)


def _jobs(args: argparse.Namespace) -> int:
    if args.ray not in (None, "local"):
        if args.jobs is not None:
            raise TileschedError("--jobs sets the local pool or a local Ray; a cluster "
                                 f"(--ray {args.ray}) uses all its CPUs")
        if pathlib.Path(args.ray).suffix == ".mlir":
            raise TileschedError(f"--ray took '{args.ray}' as its cluster ADDRESS; put the files "
                                 "before --ray, or write --ray=ADDRESS")
    if args.ray is not None and importlib.util.find_spec("ray") is None:
        from tilesched.tune.runners import RAY_MISSING

        raise TileschedError(RAY_MISSING)
    if args.jobs is not None and args.jobs < 1:
        raise TileschedError(f"--jobs must be >= 1, got {args.jobs}")
    return args.jobs or len(os.sched_getaffinity(0))


def _make_jobs(args: argparse.Namespace, store) -> list:
    """One job per kernel and target, each kernel checked before any search (bad input is a
    located error, exit 2), and none whose results on disk come from another space."""
    from tilesched.input_files import read_text
    from tilesched.sim.lowering.lower import parse_arg_values
    from tilesched.tune.evaluate import KernelSpec
    from tilesched.tune.search import make_job

    values = parse_arg_values(args.arg)
    targets = list(dict.fromkeys(s.strip() for item in args.target or ["ascend-a2"]
                                 for s in item.split(",") if s.strip()))
    if not targets:
        raise TileschedError("--target names no target")
    jobs = []
    for path in dict.fromkeys(args.files):
        text = read_text(path, "kernel")  # once: '-' is standard input
        for target in targets:
            job = make_job(KernelSpec.load(path, target, values, text))
            store.check_space(path, target, job.fingerprint)
            jobs.append(job)
    return jobs


def _check_outputs(args: argparse.Namespace) -> None:
    """Outputs must not overwrite an input kernel; the plot must be a .png."""
    for option, out in (("--results", args.results), ("--plot", args.plot)):
        if out:
            check_output(out, args.files, option=option, force_option=None, stdout=False)
    if args.plot and not args.plot.endswith(".png"):
        raise TileschedError(f"--plot writes PNG: '{args.plot}' must end in .png")


def _write_plot(summaries, path: str) -> None:
    from tilesched.report.tune_report import write_tune_plot

    target = pathlib.Path(path)
    try:
        write_tune_plot(summaries, lambda fig: write_replacing(
            target, lambda tmp: fig.savefig(tmp, format="png", dpi=110)))
    except OSError as err:
        raise TileschedError(f"cannot write plot: {err.strerror or err}", path) from None


class _Progress:
    """A live bar on stderr (rich) while evaluations come back; silent when ``quiet``."""

    def __init__(self, jobs: list, settings, quiet: bool) -> None:
        self._bar = None
        if quiet:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        total = sum(min(settings.budget, job.size or settings.budget) for job in jobs)
        self._bar = Progress("[progress.description]{task.description}", BarColumn(),
                             MofNCompleteColumn(), TimeElapsedColumn(),
                             console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task("tune", total=total)
        self._bar.start()

    def update(self, job, trial, cached: bool) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=1,
                             description=f"tune {job.kernel.name.rsplit('/', 1)[-1]}")

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
