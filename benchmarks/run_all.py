"""Regenerate BENCHMARKS.md: ``python benchmarks/run_all.py [SECTION ...]``.

Each ``benchmarks/bench_<section>.py`` defines ``run() -> str`` returning a
Markdown section (a ``## `` heading and its tables). Sections not named on the
command line keep their previous text, so one slow section need not be re-run
to refresh another. All ratios inside one section are measured in one process,
side by side, because these machines are shared and noisy.

The rows a section records with ``figures.add_row`` are saved to
``benchmarks/results/SECTION.json``; after the sections ran, the ``figures``
section is redrawn from all saved results (matplotlib PNGs in
``benchmarks/img/``). ``run_all.py figures`` only redraws them.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "BENCHMARKS.md"
HEADER = (
    "# tilesched benchmarks\n\n"
    "Regenerate with `python benchmarks/run_all.py` (all sections) or\n"
    "`python benchmarks/run_all.py SECTION` (one). Machine: 2 cores, no GPU; figures from one run.\n"
)


def _sections_on_disk() -> dict[str, str]:
    if not OUT.exists():
        return {}
    text = OUT.read_text()
    found = {}
    for match in re.finditer(r"<!-- section:(\w+) -->\n(.*?)<!-- /section -->\n", text, re.S):
        found[match.group(1)] = match.group(2)
    return found


def _load(section: str):
    path = ROOT / "benchmarks" / f"bench_{section}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{section}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, str(ROOT / "benchmarks"))  # bench modules import their helpers by name
import figures  # noqa: E402  (the same module object the bench modules record into)


def main(argv: list[str]) -> int:
    available = sorted(p.stem[len("bench_"):] for p in (ROOT / "benchmarks").glob("bench_*.py"))
    wanted = [s for s in argv if s != "figures"] if argv else available
    unknown = [s for s in wanted if s not in available]
    if unknown:
        print(f"unknown section(s) {unknown}; available: {available}", file=sys.stderr)
        return 2
    sections = _sections_on_disk()
    for name in wanted:
        start = time.perf_counter()
        print(f"running {name} ...", file=sys.stderr, flush=True)
        figures.start(name)
        sections[name] = _load(name).run().rstrip() + "\n"
        figures.save(name)
        print(f"  {name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    sections["figures"] = figures.plot_all().rstrip() + "\n"
    body = "".join(
        f"\n<!-- section:{name} -->\n{sections[name]}<!-- /section -->\n" for name in sorted(sections)
    )
    OUT.write_text(HEADER + body)
    print(f"wrote {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
