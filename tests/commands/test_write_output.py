"""The shared output writer: atomic, never over an input, clear errors for bad paths."""

from __future__ import annotations

import os

import pytest

from tilesched.commands.common import write_output
from tilesched.diagnostics import TileschedError


def test_writes_text_and_bytes(tmp_path):
    write_output(str(tmp_path / "a.txt"), "hello")
    write_output(str(tmp_path / "b.bin"), b"\x00\x01")
    assert (tmp_path / "a.txt").read_text() == "hello"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.bin"]  # no temp left


def test_replaces_an_existing_file_keeping_its_mode(tmp_path):
    out = tmp_path / "out.html"
    out.write_text("old")
    out.chmod(0o640)
    write_output(str(out), "new")
    assert out.read_text() == "new" and (out.stat().st_mode & 0o777) == 0o640


def test_refuses_the_input_file_under_any_spelling(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text("keep")
    os.symlink(src, tmp_path / "link.mlir")
    for spelling in (str(src), str(tmp_path / "." / "k.mlir"), str(tmp_path / "link.mlir")):
        with pytest.raises(TileschedError, match="is the input file"):
            write_output(spelling, "x", inputs=[str(src)])
    assert src.read_text() == "keep"


@pytest.mark.parametrize("where, message", [
    ("missing/x.html", "no such directory"),
    ("", "is a directory"),
])
def test_bad_paths_are_clear_errors(tmp_path, where, message):
    with pytest.raises(TileschedError, match=message):
        write_output(str(tmp_path / where), "x")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_unwritable_folder_is_a_clear_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(TileschedError, match="cannot write"):
            write_output(str(folder / "x.html"), "x")
    finally:
        folder.chmod(0o700)


@pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs sysfs (Linux)")
def test_unwritable_filesystem_is_a_clear_error():
    with pytest.raises(TileschedError, match="cannot write '/sys/kernel/x.html'"):
        write_output("/sys/kernel/x.html", "x")  # read-only even for root
