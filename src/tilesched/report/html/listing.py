"""The IR listings a report shows: the input as written, and the transformed IR of ``-p``.

The transformed module is printed, then parsed again under the listing's name, so that every op
simulated after the pipeline is located at its line in the listing the page shows. Lines are
marked by comparing that text with the input printed by the same printer: *added* (not in the
input at all: sync ops, prologue/epilogue copies, new buffers) or *moved* (an input line at a new
place, e.g. after ``reorder-events``). Each transformed op also keeps its *origin*: where it was
written in the input, when it came from there.
"""

from __future__ import annotations

import difflib
from collections import Counter

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp

from tilesched.ir import parse_text, print_module


def listing(name: str, text: str, marks: list[str] | None = None) -> dict:
    """``{name, lines, marks}`` for the page (``marks[k]`` is ``""``, ``added`` or ``moved``)."""
    lines = text.splitlines()
    return {"name": name, "lines": lines, "marks": marks or [""] * len(lines)}


def mark_changes(before: str, after: str) -> list[str]:
    """Per line of ``after``: ``added``, ``moved`` or ``""`` (unchanged), against ``before``."""
    old, new = before.splitlines(), after.splitlines()
    marks = [""] * len(new)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    removed: Counter[str] = Counter()
    inserted: list[int] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("delete", "replace"):
            removed.update(line.strip() for line in old[i1:i2])
        if tag in ("insert", "replace"):
            inserted += range(j1, j2)
    for j in inserted:
        key = new[j].strip()
        if removed[key] > 0:
            removed[key] -= 1
            marks[j] = "moved"
        else:
            marks[j] = "added"
    return marks


def relocate(module: ModuleOp, name: str) -> tuple[ModuleOp, str, dict[str, str]]:
    """Print ``module``, parse it back as ``name``; returns the new module, its text, and for
    each op's new ``file:line:col`` the location it had before, where it had its own."""
    text = print_module(module)
    reparsed = parse_text(text, name)
    origins = {}
    for old, new in zip(module.walk(), reparsed.walk(), strict=False):
        if isinstance(old.location, FileLineColLoc) and isinstance(new.location, FileLineColLoc):
            origins[_loc_text(new.location)] = _loc_text(old.location)
    return reparsed, text, origins


def _loc_text(loc: FileLineColLoc) -> str:
    return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
