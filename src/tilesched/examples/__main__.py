"""``python -m tilesched.examples``: list the bundled examples, or regenerate their ``.mlir``.

``--write`` rewrites each ``NAME.mlir`` from its DSL code ``NAME.py``; ``--check`` only reports
the ``.mlir`` files that differ from what their DSL code prints, exiting 1 if any does.
"""

from __future__ import annotations

import argparse
import sys

from tilesched.examples import ALL_EXAMPLES, example_path, render_example


def _stale_files() -> list[str]:
    """``.mlir`` files whose content differs from what their DSL code prints."""
    return [str(example_path(e.name)) for e in ALL_EXAMPLES
            if example_path(e.name).read_text() != render_example(e.name)]


def _write() -> None:
    """Regenerate every ``.mlir`` from its DSL code."""
    for example in ALL_EXAMPLES:
        path = example_path(example.name)
        path.write_text(render_example(example.name))
        print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    """List, regenerate (``--write``) or check (``--check``) the examples."""
    parser = argparse.ArgumentParser(prog="python -m tilesched.examples", description=__doc__)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--write", action="store_true", help="regenerate the .mlir files")
    group.add_argument("--check", action="store_true", help="exit 1 if a .mlir file is stale")
    args = parser.parse_args(argv)
    if args.write:
        _write()
    elif args.check:
        stale = _stale_files()
        for path in stale:
            print(f"stale: {path}")
        return 1 if stale else 0
    else:
        for example in ALL_EXAMPLES:
            print(f"{example.name:18} {example.target:12} {example.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
