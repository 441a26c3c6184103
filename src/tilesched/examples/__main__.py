"""``python -m tilesched.examples``: list the bundled examples, or regenerate them.

``--write DIR`` rewrites each ``NAME.mlir`` here from its DSL code and mirrors ``NAME.py`` and
``NAME.mlir`` into ``DIR`` (the repository's ``examples/``); ``--check DIR`` only reports files
that differ, exiting 1 if any does.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import sys

from tilesched.examples import EXAMPLES, example_path, example_source, render_example


def _stale_files(mirror: pathlib.Path) -> list[str]:
    """Files whose content differs from what the DSL code produces or from the packaged copy."""
    stale = []
    for example in EXAMPLES:
        mlir, source = example_path(example.name), example_source(example.name)
        if mlir.read_text() != render_example(example.name):
            stale.append(str(mlir))
        for packaged in (mlir, source):
            copy = mirror / packaged.name
            if not copy.is_file() or copy.read_text() != packaged.read_text():
                stale.append(str(copy))
    return stale


def _write(mirror: pathlib.Path) -> None:
    """Regenerate every ``.mlir`` from its DSL code and mirror both files into ``mirror``."""
    mirror.mkdir(parents=True, exist_ok=True)
    for example in EXAMPLES:
        mlir = example_path(example.name)
        mlir.write_text(render_example(example.name))
        for packaged in (mlir, example_source(example.name)):
            shutil.copyfile(packaged, mirror / packaged.name)
            print(f"wrote {mirror / packaged.name}")


def main(argv: list[str] | None = None) -> int:
    """List, regenerate (``--write DIR``) or check (``--check DIR``) the examples."""
    parser = argparse.ArgumentParser(prog="python -m tilesched.examples", description=__doc__)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", metavar="DIR", help="regenerate .mlir files and mirror into DIR")
    group.add_argument("--check", metavar="DIR", help="exit 1 if DIR or a .mlir file is stale")
    args = parser.parse_args(argv)
    if args.write:
        _write(pathlib.Path(args.write))
    elif args.check:
        stale = _stale_files(pathlib.Path(args.check))
        for path in stale:
            print(f"stale: {path}")
        return 1 if stale else 0
    else:
        for example in EXAMPLES:
            print(f"{example.name:18} {example.target:12} {example.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
