"""Arguments and steps shared by subcommands: ``--target``, ``--json``, loading a verified module."""

from __future__ import annotations

import argparse

from xdsl.dialects.builtin import ModuleOp

from tilesched.ir import parse_file, verify_module
from tilesched.target import Target, builtin_target_names, load_target


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default="ascend-a2", metavar="T",
                        help="target name (" + ", ".join(builtin_target_names())
                        + ") or path to a target .toml (default: ascend-a2)")
    parser.add_argument("--json", action="store_true", help="machine-readable JSON output")


def load_verified(path: str, target: Target) -> ModuleOp:
    """Parse ``path`` and verify it against ``target``; errors are located and exit 2."""
    module = parse_file(path)
    verify_module(module, target)
    return module


def target_from_args(args: argparse.Namespace) -> Target:
    return load_target(args.target)
