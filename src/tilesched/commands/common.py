"""Arguments and steps shared by subcommands: ``--target``, ``--json``, loading a verified module,
writing an output file."""

from __future__ import annotations

import argparse
import contextlib
import os
import pathlib
import stat
import tempfile
from collections.abc import Iterable

from xdsl.dialects.builtin import ModuleOp

from tilesched.diagnostics import TileschedError
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


def write_output(path: str, data: str | bytes, inputs: Iterable[str] = ()) -> None:
    """Write a command's output file atomically: a temporary file beside it, then a rename.

    A reader never sees a half-written file and a failed write leaves the old one intact. Refused
    with a clear :class:`TileschedError` (exit 2): an output that is one of the command's
    ``inputs``, a directory, or a path whose folder is missing or not writable.
    """
    for source in inputs:
        if source != "-" and _same_file(path, source):
            raise TileschedError(f"output '{path}' is the input file; refusing to overwrite it")
    target = pathlib.Path(path)
    if target.is_dir():
        raise TileschedError(f"cannot write '{path}': it is a directory")
    folder = target.parent
    if not folder.is_dir():
        raise TileschedError(f"cannot write '{path}': no such directory '{folder}'")
    raw = data.encode() if isinstance(data, str) else data
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise TileschedError(f"cannot write '{path}': {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(raw)
        os.chmod(temp, _new_file_mode(target))
        os.replace(temp, target)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise TileschedError(f"cannot write '{path}': {err.strerror or err}") from None


def _same_file(a: str, b: str) -> bool:
    """True when two paths name the same file (existing or not)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _new_file_mode(target: pathlib.Path) -> int:
    """The mode an ordinary ``open(path, 'w')`` would give: the old file's, or 0666 & ~umask."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
