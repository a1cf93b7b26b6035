import os
import stat

import pytest

from kusari.utils.atomic import atomic_path, atomic_write


@pytest.mark.parametrize("mode,data", [("wb", b"bytes"), ("w", "text")])
def test_atomic_write_replaces(tmp_path, mode, data):
    target = tmp_path / "f"
    target.write_bytes(b"old")
    with atomic_write(target, mode) as f:
        f.write(data)
        assert target.read_bytes() == b"old"  # not visible until the end
    assert target.read_bytes() == (data if isinstance(data, bytes) else data.encode())
    assert os.listdir(tmp_path) == ["f"]


def test_atomic_write_error_keeps_old(tmp_path):
    target = tmp_path / "f"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as f:
            f.write(b"partial")
            raise RuntimeError("boom")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f"]


def test_atomic_write_permissions_follow_umask(tmp_path):
    with atomic_write(tmp_path / "f") as f:
        f.write(b"x")
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "f").st_mode) == 0o666 & ~umask


def test_atomic_write_rejects_other_modes(tmp_path):
    with pytest.raises(ValueError, match="mode must be"):
        with atomic_write(tmp_path / "f", "ab"):
            pass


def test_atomic_path(tmp_path):
    target = tmp_path / "g"
    with atomic_path(target) as tmp:
        assert os.path.dirname(tmp) == str(tmp_path)
        with open(tmp, "w") as f:
            f.write("hi")
    assert target.read_text() == "hi"
    with pytest.raises(KeyError):
        with atomic_path(target) as tmp:
            raise KeyError("x")
    assert os.listdir(tmp_path) == ["g"]
