"""``tilesched include-dir``: print the folder holding the header emit-cpp's output includes.

    g++ -std=c++17 -fsyntax-only -I "$(tilesched include-dir)" kernel.cpp
"""

from __future__ import annotations

import argparse
import json

from tilesched.emit import include_dir


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "include-dir", help="print the include folder for C++ written by emit-cpp",
        description="Print the folder holding tilesched/pto_tile.hpp, the header C++ printed by "
                    "the emit-cpp pass includes (use it with -I).")
    parser.add_argument("--json", action="store_true", help='print {"include_dir": PATH}')
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = str(include_dir())
    print(json.dumps({"include_dir": path}) if args.json else path)
    return 0
