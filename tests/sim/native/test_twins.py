"""The compiled twins say what they mirror, and were built from the sources on disk.

No build is needed for the map: the ``.pyx`` files are read as text. Every public function,
class and method of a compiled module names its Python twin (``Python twin: ``dotted.path````),
the path resolves to a Python function, class, method or attribute, and the twin names the
compiled module back (``Compiled twin: ``native/FILE.pyx````, on the object or, for an
attribute, on its class). ``isa.pxd`` gives the compiled modules the same constants as
``isa.py``. A built module whose recorded source hash differs from the files here fails.
"""

from __future__ import annotations

import importlib
import inspect
import pathlib
import re

import pytest

from tilesched.sim import isa, native
from tilesched.sim.native.sources import source_hash

NATIVE = pathlib.Path(native.__file__).parent
PYX = sorted(NATIVE.glob("*.pyx"))
PUBLIC = re.compile(r"^(?P<indent> *)(?:def|cpdef|cdef class|class) (?P<name>\w+)[(:]", re.M)
TWIN = re.compile(r"Python twin: ``(tilesched\.[\w.]+)``")


def compiled_items(path: pathlib.Path) -> list[tuple[str, str]]:
    """``(qualified name, docstring)`` of every public function, class and method of a
    ``.pyx`` (methods of public classes; exception classes are signals, not twins)."""
    text, items, owner = path.read_text(), [], None
    for match in PUBLIC.finditer(text):
        name, nested = match["name"], bool(match["indent"])
        line = text[match.start():text.index("\n", match.start())]
        if not nested:
            owner = name if "class" in line.split(name)[0] else None
            if "(Exception)" in line or name.startswith("_"):
                owner = None
                continue
        elif owner is None or name.startswith("_"):
            continue
        body = text[match.end():]
        doc = re.search(r'"""(.*?)"""', body, re.S)
        items.append((f"{owner}.{name}" if nested else name, doc[1] if doc else ""))
    return items


def resolve(dotted: str):
    """``(object, owner)``: the Python object a dotted path names; an instance attribute
    (assigned ``self.NAME`` in its class) resolves to ``(None, class)``."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        owner = None
        for name in parts[cut:]:
            if not hasattr(obj, name) and inspect.isclass(obj) and name == parts[-1] \
                    and re.search(rf"self\.{name}\b\s*[:=]", inspect.getsource(obj)):
                return None, obj
            owner, obj = obj, getattr(obj, name)
        return obj, owner
    raise ImportError(dotted)


@pytest.mark.parametrize("path", PYX, ids=lambda p: p.name)
def test_every_compiled_item_names_a_python_twin_that_names_it_back(path):
    items = compiled_items(path)
    assert items, f"no public function found in {path.name}"
    for name, doc in items:
        twins = TWIN.findall(doc)
        assert twins, f"{path.name} {name}: its docstring names no 'Python twin: ``...``'"
        obj, owner = resolve(twins[0])
        back = inspect.getdoc(obj if obj is not None else owner) or ""
        assert f"native/{path.name}" in back, (
            f"{twins[0]} (the twin of {path.name} {name}) does not name native/{path.name}")


def test_the_map_covers_the_known_twins():
    names = {path.name: [n for n, _ in compiled_items(path)] for path in PYX}
    assert {"BoundTracker", "BoundTracker.feed", "BoundTracker.bound"} <= set(names["bound.pyx"])
    assert {"NativeEngine", "NativeEngine.run", "NativeEngine.summary"} <= set(names["core.pyx"])
    assert {"chunk_code", "moved_ops", "issuer_code"} <= set(names["producers.pyx"])


def test_isa_pxd_constants_equal_isa_py():
    text = (NATIVE.parent / "isa.pxd").read_text()
    found = dict(re.findall(r"^\s+([A-Z_]+) = (\d+)$", text, re.M))
    assert found, "isa.pxd declares no constant"
    for name, value in found.items():
        assert getattr(isa, name) == int(value), f"isa.pxd {name} = {value}, isa.py says otherwise"


def test_built_twins_were_built_from_these_sources():
    """A stale build fails the suite (importing it only warns: StaleBuildWarning)."""
    assert native.stale_modules() == [], (
        "compiled modules built from other sources: rebuild with "
        "'python setup.py build_ext --inplace'")


def test_the_source_hash_follows_every_file_a_twin_is_built_from(tmp_path, monkeypatch):
    from tilesched.sim.native import sources

    (tmp_path / "native").mkdir()
    for path in [*NATIVE.glob("*.pyx"), *NATIVE.glob("*.pxd"), *NATIVE.glob("*.h")]:
        (tmp_path / "native" / path.name).write_text(path.read_text())
    (tmp_path / "isa.pxd").write_text((NATIVE.parent / "isa.pxd").read_text())
    monkeypatch.setattr(sources, "HERE", tmp_path / "native")
    assert source_hash("bound") == native.sources.source_hash("bound")  # same files, same hash
    for edited in ["native/bound.pyx", "native/core_state.h", "isa.pxd"]:
        before = source_hash("bound")
        (tmp_path / edited).write_text((tmp_path / edited).read_text() + "\n")
        assert source_hash("bound") != before, f"editing {edited} left the hash of bound as it was"
