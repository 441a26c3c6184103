"""Output files: refused before any work when unsafe, written atomically (output_files.py)."""

from __future__ import annotations

import os
import stat

import pytest

from tilesched.diagnostics import TileschedError
from tilesched.output_files import check_output, open_output, write_output, write_replacing


def test_an_output_that_is_an_input_is_refused_unless_forced(tmp_path):
    source = tmp_path / "k.mlir"
    source.write_text("input")
    with pytest.raises(TileschedError, match="is the input file .*--force"):
        check_output(str(source), [str(source)])
    # the same file under another spelling, and through a hard link
    with pytest.raises(TileschedError, match="is the input file"):
        check_output(str(tmp_path / "." / "k.mlir"), [str(source)])
    os.link(source, tmp_path / "link.mlir")
    with pytest.raises(TileschedError, match="is the input file"):
        check_output(str(tmp_path / "link.mlir"), [str(source)])
    check_output(str(source), [str(source)], force=True)
    check_output(str(tmp_path / "other.mlir"), [str(source), "-"])


@pytest.mark.parametrize(("where", "message"), [
    ("", "is a directory"),
    ("missing/x.mlir", "no such directory '.*missing'"),
    ("file.txt/x.mlir", "not a directory '.*file.txt'"),
])
def test_unwritable_places_are_refused_with_a_message(tmp_path, where, message):
    (tmp_path / "file.txt").write_text("")
    with pytest.raises(TileschedError, match=message):
        check_output(str(tmp_path / where) if where else str(tmp_path), option="-o")


def test_write_output_replaces_atomically_and_keeps_the_mode(tmp_path):
    out = tmp_path / "o.mlir"
    out.write_text("old")
    out.chmod(0o640)
    write_output(str(out), "new")
    assert out.read_text() == "new"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    write_output(str(tmp_path / "b.bin"), b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.bin", "o.mlir"]


def test_new_files_get_the_umask_mode(tmp_path):
    previous = os.umask(0o022)
    try:
        write_output(str(tmp_path / "n.txt"), "x")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o644


def test_an_interrupted_writer_leaves_the_old_file_and_no_temporary(tmp_path):
    out = tmp_path / "trace.json"
    out.write_text("complete old trace")
    with pytest.raises(KeyboardInterrupt), open_output(str(out)) as stream:
        stream.write("half of a new")
        raise KeyboardInterrupt
    assert out.read_text() == "complete old trace"
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]


def test_write_replacing_gives_writers_a_path_with_the_same_suffix(tmp_path):
    seen = []
    write_replacing(tmp_path / "r.parquet", lambda tmp: (seen.append(tmp.suffix), tmp.write_text("t")))
    assert seen == [".parquet"] and (tmp_path / "r.parquet").read_text() == "t"


def test_symlinked_output_is_written_through_the_link(tmp_path):
    real = tmp_path / "real.mlir"
    real.write_text("old")
    (tmp_path / "link.mlir").symlink_to(real)
    write_output(str(tmp_path / "link.mlir"), "new")
    assert (tmp_path / "link.mlir").is_symlink() and real.read_text() == "new"


def test_devices_are_written_in_place_not_replaced():
    check_output(os.devnull)
    write_output(os.devnull, "discarded")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_os_errors_become_messages(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        with pytest.raises(TileschedError, match="not writable"):
            check_output(str(locked / "x.mlir"))
        with pytest.raises(TileschedError, match="cannot write '"):
            write_output(str(locked / "x.mlir"), "x")
    finally:
        locked.chmod(0o700)


def test_write_errors_become_messages_even_without_a_check(tmp_path):
    with pytest.raises(TileschedError, match="cannot write '.*x.json': No such file"):
        write_output(str(tmp_path / "gone" / "x.json"), "{}")
