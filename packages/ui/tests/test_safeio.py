"""Only regular files are opened, and a FIFO never blocks the opener."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kusari_ui.safeio import NotRegularFileError, open_regular, read_regular


def _in_thread(fn, *args):
    """Run ``fn`` in a thread; fail (instead of hanging) if it blocks."""
    out: dict = {}

    def target() -> None:
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # handed to the test below
            out["exc"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), f"{fn.__name__} blocked"
    return out


def test_regular_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"hello world")
    assert read_regular(tmp_path / "f", 5) == b"hello"
    with open_regular(tmp_path / "f") as f:
        assert f.read() == b"hello world"


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "args")
    out = _in_thread(read_regular, tmp_path / "args", 100)
    assert isinstance(out.get("exc"), NotRegularFileError)
    assert "FIFO" in str(out["exc"])


@pytest.mark.parametrize(("path", "kind"), [("/dev/null", "device"), (".", "folder")])
def test_devices_and_folders_are_refused(tmp_path: Path, path: str, kind: str) -> None:
    target = tmp_path if path == "." else Path(path)
    with pytest.raises(NotRegularFileError, match=kind):
        read_regular(target, 10)


def test_missing_file_raises_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "nope", 10)
