import builtins

import numpy as np
import pytest

from kusari.serializers import (
    HDF5Deserializer,
    HDF5Serializer,
    load_hdf5,
    save_hdf5,
)

h5py = pytest.importorskip("h5py")


class Leaf:
    def __init__(self, fill=0.0):
        self.w = np.full((2, 3), fill, dtype=np.float32)
        self.b = None
        self.t = 0
        self.name = "n"

    def serialize(self, s):
        self.w = s("w", self.w)
        self.b = s("b", self.b)
        self.t = s("t", self.t)
        self.name = s("name", self.name)


class Tree:
    def __init__(self, fill=0.0):
        self.l1 = Leaf(fill)

    def serialize(self, s):
        self.l1.serialize(s["l1"])


def test_round_trip(tmp_path):
    src = Tree(2.0)
    src.l1.t, src.l1.name = 5, "héllo"
    path = tmp_path / "m.h5"
    save_hdf5(path, src)
    with h5py.File(path, "r") as f:
        assert f["l1/w"].shape == (2, 3)
        assert f["l1/b"].shape is None  # None is stored as h5py.Empty
    dst = Tree()
    dst.l1.b = np.ones(2)
    load_hdf5(path, dst)
    np.testing.assert_array_equal(dst.l1.w, np.full((2, 3), 2.0))
    assert dst.l1.b is None
    assert dst.l1.t == 5 and dst.l1.name == "héllo"


def test_missing_key_strict_and_not(tmp_path):
    path = tmp_path / "m.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=1)
    with h5py.File(path, "r") as f:
        with pytest.raises(KeyError, match="'y'.*m.h5"):
            HDF5Deserializer(f)("y", 0)
        with pytest.raises(KeyError, match="'g'"):
            HDF5Deserializer(f)["g"]
        loose = HDF5Deserializer(f, strict=False)
        assert loose("y", 3) == 3
        assert loose["g"]("z", 4) == 4


def test_serializer_rejects_objects(tmp_path):
    with h5py.File(tmp_path / "m.h5", "w") as f:
        with pytest.raises(TypeError, match="'o'"):
            HDF5Serializer(f)("o", object())


def test_foreign_file_names_file(tmp_path):
    path = tmp_path / "bad.h5"
    path.write_bytes(b"not hdf5 at all")
    with pytest.raises(ValueError, match="bad.h5"):
        load_hdf5(path, Tree())


def test_failed_save_leaves_no_file(tmp_path):
    class Broken:
        def serialize(self, s):
            s("o", object())

    with pytest.raises(TypeError):
        save_hdf5(tmp_path / "m.h5", Broken())
    assert list(tmp_path.iterdir()) == []


def test_clear_error_without_h5py(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "h5py":
            raise ImportError("no h5py")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match="save_hdf5 needs h5py.*pip install h5py"):
        save_hdf5(tmp_path / "m.h5", Tree())
