"""Reading the files tilesched is given, bounded (DESIGN.md §5: bad input never crashes).

Every input a user names (a ``.mlir`` program or ``-`` for standard input, a target ``.toml``, a
``tune`` kernel) is read through :func:`read_text`:

- at most :data:`DEFAULT_MAX_INPUT_BYTES` (``--max-input-bytes`` raises or lowers it for one
  run), so ``tilesched sim /dev/zero`` or an endless pipe ends with exit 2 once the limit is
  read instead of filling memory;
- in chunks, each checked as it arrives: a NUL byte or bytes that are not UTF-8 end the read at
  once with the offset (``opt /dev/urandom`` stops after the first chunk);
- a leading UTF-8 byte-order mark is dropped (editors on Windows write one).
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from typing import BinaryIO

from tilesched.diagnostics import Location, TileschedError

DEFAULT_MAX_INPUT_BYTES = 64 << 20
_CHUNK = 1 << 16

_limit = DEFAULT_MAX_INPUT_BYTES


def set_max_input_bytes(limit: int | None) -> None:
    """The most bytes any one input may have in this run (None: the default)."""
    global _limit
    _limit = DEFAULT_MAX_INPUT_BYTES if limit is None else limit


def max_input_bytes() -> int:
    return _limit


def read_text(path: str, what: str = "", limit: int | None = None) -> str:
    """The text of ``path`` (``-``: standard input), bounded (``limit`` bytes, else the run's
    ``--max-input-bytes``) and checked to be UTF-8 text; a :class:`TileschedError` (exit 2)
    naming ``what`` (e.g. "target file") and the path otherwise."""
    limit = _limit if limit is None else limit
    name = "<stdin>" if path == "-" else path
    label = f"{what} '{name}'" if what else f"'{name}'"
    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream put in its place (tests, embedding programs)
            stream = _Encoded(sys.stdin)
        return _read(stream, label, name, what, limit)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise TileschedError(f"cannot read {label}: no such file") from None
    except OSError as err:
        raise TileschedError(f"cannot read {label}: {err.strerror or err}") from None
    if stat.S_ISDIR(mode):
        raise TileschedError(f"cannot read {label}: is a directory")
    if stat.S_ISREG(mode) and os.stat(path).st_size > limit:
        raise TileschedError(f"cannot read {label}: {os.stat(path).st_size:,} bytes, more than "
                             f"the limit of {limit:,} (--max-input-bytes)")
    try:
        with open(path, "rb") as file:
            return _read(file, label, name, what, limit)
    except OSError as err:
        raise TileschedError(f"cannot read {label}: {err.strerror or err}") from None


class _Encoded:
    """A text stream read as UTF-8 bytes (``read(n)``: about ``n`` bytes)."""

    def __init__(self, text_stream):
        self.text_stream = text_stream

    def read(self, n: int) -> bytes:
        return self.text_stream.read(max(1, n // 4)).encode()


def _read(file: BinaryIO, label: str, name: str, what: str, limit: int) -> str:
    """Read ``file`` chunk by chunk, stopping at the first sign it is not text or too long."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts: list[str] = []
    offset = 0
    while True:
        chunk = file.read(min(_CHUNK, limit + 1 - offset))
        if not chunk:
            break
        nul = chunk.find(b"\0")
        try:
            parts.append(decoder.decode(chunk))
        except UnicodeDecodeError as err:
            if not 0 <= nul < err.start:
                raise TileschedError(f"cannot read {label}: not UTF-8 text (byte "
                                     f"{offset + max(err.start, 0)})") from None
        if nul >= 0:
            before = "".join(parts[:-1]) + chunk[:nul].decode(errors="replace")
            where = Location(name, before.count("\n") + 1, len(before) - before.rfind("\n"))
            raise TileschedError(f"{what or 'input'} is not text: a NUL byte (byte "
                                 f"{offset + nul})", where)
        offset += len(chunk)
        if offset > limit:
            raise TileschedError(f"cannot read {label}: more than the limit of {limit:,} bytes "
                                 "(--max-input-bytes)")
    try:
        parts.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        raise TileschedError(f"cannot read {label}: not UTF-8 text (it ends inside a character, "
                             f"byte {offset})") from None
    return "".join(parts).removeprefix("\ufeff")
