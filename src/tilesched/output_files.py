"""Writing the files tilesched produces, safely (DESIGN.md §5: bad input never crashes).

Every command that writes a file (``opt -o``, ``sim --trace``, ``report -o``, ``tune --results``,
emit-cpp output) goes through this module:

- :func:`check_output` runs *before* any work: an output that is a directory, lies in a
  directory that does not exist, or is one of the command's input files is refused with a
  :class:`TileschedError` (exit 2). Overwriting an input takes an explicit ``--force``.
- :func:`write_output`, :func:`open_output` and :func:`write_replacing` write a temporary file in
  the output's own directory and rename it over the output (``os.replace`` is atomic on POSIX):
  readers see the old file or the complete new one, never half of it, even if the writer is
  interrupted. A temporary file is created with the user's umask like any new file; replacing an
  existing file keeps its permission bits. A character device (``/dev/null``) is written in
  place, since renaming over a device is never wanted.
- ``-`` is standard output (:data:`STDOUT`; the command then prints its summary on standard
  error). A path ending in ``/`` names a directory and is refused, as are FIFOs (a named pipe
  blocks until someone reads it), sockets and block devices.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO

from tilesched.diagnostics import TileschedError

STDOUT = "-"


def check_output(path: str, inputs: Iterable[str] = (), force: bool = False,
                 option: str = "-o", force_option: str | None = "--force",
                 stdout: bool = True) -> None:
    """Refuse ``path`` as an output (exit 2) when it cannot be written or would overwrite one
    of ``inputs`` (unless ``force``); ``option`` names the flag in the message, ``force_option``
    the flag that allows overwriting an input (None: the command has none); ``stdout``: may
    the output be ``-`` (standard output)."""
    if path == STDOUT:
        if not stdout:
            raise TileschedError(f"{option} cannot be standard output ('-'); name a file")
        return
    if not path:
        raise TileschedError(f"{option} needs a file name, got an empty one")
    out = pathlib.Path(path)
    if out.is_dir():
        raise TileschedError(f"cannot write '{path}': it is a directory")
    if path.endswith(("/", os.sep)):
        raise TileschedError(f"cannot write '{path}': a path ending in '/' names a directory")
    if (kind := _refused_kind(out)) is not None:
        hint = "; use - for standard output" if stdout else ""
        raise TileschedError(f"cannot write '{path}': it is {kind}{hint}")
    parent = out.parent
    if not parent.is_dir():
        what = "not a directory" if parent.exists() else "no such directory"
        raise TileschedError(f"cannot write '{path}': {what} '{parent}'")
    if not os.access(parent, os.W_OK | os.X_OK) and not _is_special(out):
        raise TileschedError(f"cannot write '{path}': directory '{parent}' is not writable")
    if force:
        return
    for source in inputs:
        if source != "-" and _same_file(out, pathlib.Path(source)):
            hint = f" (pass {force_option} to overwrite it)" if force_option else ""
            raise TileschedError(f"{option} '{path}' is the input file '{source}'; refusing to "
                                 f"overwrite it{hint}")


def write_output(path: str, data: str | bytes) -> None:
    """Write ``data`` (text or bytes) to ``path`` atomically (``-``: standard output)."""
    mode = "wb" if isinstance(data, bytes) else "w"
    with open_output(path, mode) as out:
        out.write(data)


@contextlib.contextmanager
def open_output(path: str, mode: str = "w") -> Iterator[IO]:
    """A file object whose contents replace ``path`` atomically when the block ends without an
    exception (``mode`` ``"w"`` or ``"wb"``); on an exception ``path`` is left untouched.
    ``-`` is standard output (flushed, not closed)."""
    if path == STDOUT:
        out = sys.stdout.buffer if "b" in mode else sys.stdout
        yield out
        out.flush()
        return
    try:
        with _replacing(pathlib.Path(path)) as tmp, open(tmp, mode) as out:
            yield out
    except OSError as err:
        raise TileschedError(f"cannot write '{path}': {err.strerror or err}") from None


def write_replacing(path: pathlib.Path, write: Callable[[pathlib.Path], None]) -> None:
    """Call ``write(tmp)`` to fill a temporary file, then rename it over ``path`` (for writers
    that take a file name, e.g. matplotlib or pyarrow). ``OSError`` propagates."""
    with _replacing(pathlib.Path(path)) as tmp:
        write(tmp)


@contextlib.contextmanager
def _replacing(path: pathlib.Path) -> Iterator[pathlib.Path]:
    """A fresh temporary path beside ``path``, renamed over it on success, removed otherwise."""
    if _is_special(path):
        yield path  # a device or pipe: write in place
        return
    target = pathlib.Path(os.path.realpath(path))  # write through a symlink, keep the link
    tmp = _create_temporary(target)
    try:
        yield tmp
        if target.exists():
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _create_temporary(target: pathlib.Path) -> pathlib.Path:
    """An empty new file ``.NAME.<random>SUFFIX`` in ``target``'s directory (the umask applies;
    the suffix is kept for writers that choose a format by it)."""
    for _ in range(100):
        tmp = target.with_name(f".{target.name}.{os.urandom(4).hex()}{target.suffix}")
        try:
            os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        except FileExistsError:
            continue
        return tmp
    raise FileExistsError(f"no free temporary name beside {target}")


def _refused_kind(path: pathlib.Path) -> str | None:
    """What an existing ``path`` is when tilesched will not write to it: a FIFO, a socket or
    a block device (None for a regular file, a character device such as ``/dev/null``, or a
    path that does not exist)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe), which would block until another program reads it"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISBLK(mode):
        return "a block device"
    return None


def _is_special(path: pathlib.Path) -> bool:
    """An existing output that is not a regular file (a device, a pipe, a socket)."""
    try:
        return not stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _same_file(a: pathlib.Path, b: pathlib.Path) -> bool:
    """Do ``a`` and ``b`` name the same file (through links), or the same path if one is new?"""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()
