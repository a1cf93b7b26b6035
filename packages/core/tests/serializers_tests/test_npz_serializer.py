import io
import os
import zipfile

import numpy as np
import pytest

from kusari import serializer
from kusari.serializers import (
    DictionarySerializer,
    NpzDeserializer,
    load_npz,
    save_npz,
)
from kusari.serializers import npz as npz_module


class Leaf:
    def __init__(self, fill=0.0):
        self.w = np.full((2, 3), fill, dtype=np.float32)
        self.b = None
        self.t = 0
        self.lr = 0.0
        self.flag = False
        self.name = "x"

    def serialize(self, s):
        self.w = s("w", self.w)
        self.b = s("b", self.b)
        self.t = s("t", self.t)
        self.lr = s("lr", self.lr)
        self.flag = s("flag", self.flag)
        self.name = s("name", self.name)


class Tree:
    def __init__(self, fill=0.0):
        self.l1 = Leaf(fill)
        self.l2 = Leaf(fill + 1)

    def serialize(self, s):
        self.l1.serialize(s["l1"])
        self.l2.serialize(s["l2"])


def _filled_tree():
    tree = Tree(3.0)
    tree.l1.t, tree.l1.lr, tree.l1.flag, tree.l1.name = 7, 0.5, True, "abc"
    tree.l2.b = np.arange(4, dtype=np.int64)
    return tree


def test_dictionary_serializer_paths():
    s = DictionarySerializer()
    child = s["a"]["/b/"]
    assert child.path == "a/b/"
    value = np.ones(2)
    assert child("/w", value) is value
    assert list(s.target) == ["a/b/w"]


def test_dictionary_serializer_rejects_objects():
    with pytest.raises(TypeError, match="'o'.*pickle"):
        DictionarySerializer()("o", object())


@pytest.mark.parametrize("compression", [True, False])
def test_round_trip(tmp_path, compression):
    path = tmp_path / "tree.npz"
    save_npz(path, _filled_tree(), compression=compression)
    with np.load(path, allow_pickle=False) as f:
        assert sorted(f.files) == sorted(
            f"{c}/{k}"
            for c in ("l1", "l2")
            for k in ("w", "b", "t", "lr", "flag", "name")
        )
    loaded = Tree()
    loaded.l2.b = np.zeros(4, dtype=np.int64)
    w_before = loaded.l1.w
    load_npz(path, loaded)
    assert loaded.l1.w is w_before  # copied in place
    np.testing.assert_array_equal(loaded.l1.w, np.full((2, 3), 3.0))
    assert loaded.l1.b is None
    np.testing.assert_array_equal(loaded.l2.b, np.arange(4))
    assert (loaded.l1.t, loaded.l1.lr, loaded.l1.flag, loaded.l1.name) == (
        7,
        0.5,
        True,
        "abc",
    )
    assert type(loaded.l1.t) is int and type(loaded.l1.flag) is bool


def test_none_value_becomes_array_when_given_none():
    d = NpzDeserializer({"x": np.arange(3)})
    np.testing.assert_array_equal(d("x", None), np.arange(3))


def test_file_object_round_trip():
    buf = io.BytesIO()
    save_npz(buf, _filled_tree())
    buf.seek(0)
    loaded = Tree()
    loaded.l2.b = np.zeros(4, dtype=np.int64)
    load_npz(buf, loaded)
    assert loaded.l1.t == 7


def test_path_loads_subtree(tmp_path):
    path = tmp_path / "t.npz"
    save_npz(path, _filled_tree())
    leaf = Leaf()
    load_npz(path, leaf, path="l1")  # trailing slash is optional
    assert leaf.t == 7


def test_missing_key_strict_names_key_and_file(tmp_path):
    path = tmp_path / "t.npz"
    save_npz(path, Leaf())
    with pytest.raises(KeyError) as info:
        load_npz(path, Tree())
    message = str(info.value)
    assert "'w'" in message and "l1/w" in message and "t.npz" in message


def test_missing_key_not_strict_keeps_value(tmp_path):
    path = tmp_path / "t.npz"
    save_npz(path, Leaf(5.0))
    tree = Tree(9.0)
    load_npz(path, tree, strict=False)
    np.testing.assert_array_equal(tree.l1.w, np.full((2, 3), 9.0))


@pytest.mark.parametrize(
    "ignore",
    [
        "l1/w",
        ["l1/w"],
        lambda key: key == "l1/w",
        ("other", lambda k: k.endswith("1/w")),
    ],
)
def test_ignore_names(tmp_path, ignore):
    path = tmp_path / "t.npz"
    save_npz(path, _filled_tree())
    tree = Tree(-1.0)
    tree.l2.b = np.zeros(4, dtype=np.int64)
    load_npz(path, tree, ignore_names=ignore)
    np.testing.assert_array_equal(tree.l1.w, np.full((2, 3), -1.0))  # skipped
    np.testing.assert_array_equal(tree.l2.w, np.full((2, 3), 4.0))  # loaded


def test_ignore_names_rejects_bad_type():
    with pytest.raises(TypeError, match="ignore_names"):
        NpzDeserializer({}, ignore_names=[3])


def test_shape_mismatch_error(tmp_path):
    path = tmp_path / "t.npz"
    np.savez(path, w=np.zeros(5))
    with pytest.raises(ValueError, match=r"'w'.*\(5,\).*\(2, 3\)"):
        NpzDeserializer(np.load(path))("w", np.zeros((2, 3)))


def test_unsafe_scalar_cast_is_refused():
    with pytest.raises(TypeError, match="float64.*int"):
        NpzDeserializer({"t": np.asarray(1.5)})("t", 0)


def test_truncated_file_names_file(tmp_path):
    path = tmp_path / "t.npz"
    save_npz(path, _filled_tree())
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="t.npz"):
        load_npz(path, Tree())


def test_foreign_file_names_file(tmp_path):
    path = tmp_path / "notes.npz"
    path.write_text("hello, not a zip archive\n")
    with pytest.raises(ValueError, match="notes.npz"):
        load_npz(path, Tree())


def test_single_npy_file_is_rejected(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.zeros(2))
    with pytest.raises(ValueError, match="single .npy"):
        load_npz(path, Leaf())


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        load_npz("/nonexistent/dir/x.npz", Leaf())


def _write_chainer_style(path, arrays):
    # What Chainer's save_npz produces: None as a pickled 0-d object array.
    np.savez(path, allow_pickle=True, **arrays)


def test_reads_chainer_none_without_unpickling(tmp_path, monkeypatch):
    path = tmp_path / "chainer.npz"
    _write_chainer_style(path, {"w": np.ones((2, 3)), "b": np.asarray(None)})

    def no_unpickling(*args, **kwargs):
        raise AssertionError("pickle.load must not be called")

    monkeypatch.setattr("pickle.load", no_unpickling)
    monkeypatch.setattr("pickle.loads", no_unpickling)
    obj = Leaf()
    obj.b = np.zeros(2)

    class Two:
        def serialize(self, s):
            obj.w = s("w", obj.w)
            obj.b = s("b", obj.b)

    load_npz(path, Two())
    assert obj.b is None
    np.testing.assert_array_equal(obj.w, np.ones((2, 3)))


def test_refuses_other_pickled_objects(tmp_path):
    path = tmp_path / "evil.npz"
    _write_chainer_style(path, {"x": np.asarray({"a": 1}, dtype=object)})
    with pytest.raises(ValueError, match="never unpickles"):
        NpzDeserializer(np.load(path))("x", None)


def test_none_sentinel_is_pickle_free(tmp_path):
    path = tmp_path / "n.npz"
    save_npz(path, Leaf())
    with zipfile.ZipFile(path) as zf, zf.open("b.npy") as member:
        header = member.read(128)
    assert b"'|O'" not in header
    with np.load(path, allow_pickle=False) as f:
        assert f["b"].dtype == npz_module.NONE_DTYPE


def test_atomic_save_keeps_old_file_on_error(tmp_path):
    path = tmp_path / "t.npz"
    save_npz(path, Leaf(1.0))
    before = path.read_bytes()

    class Broken:
        def serialize(self, s):
            s("w", object())

    with pytest.raises(TypeError):
        save_npz(path, Broken())
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["t.npz"]


def test_protocol_base_classes():
    with pytest.raises(NotImplementedError):
        serializer.AbstractSerializer()("k", 1)
    with pytest.raises(NotImplementedError):
        serializer.AbstractSerializer()["k"]
    assert isinstance(DictionarySerializer(), serializer.Serializer)
    assert isinstance(NpzDeserializer({}), serializer.Deserializer)
    assert "path='a/'" in repr(NpzDeserializer({})["a"])


def test_link_round_trip(tmp_path):
    link = pytest.importorskip("kusari.link")
    variable = pytest.importorskip("kusari.variable")

    class Net(link.Chain):
        def __init__(self, fill):
            super().__init__()
            with self.init_scope():
                self.w = variable.Parameter(np.full((2, 2), fill, dtype=np.float32))
                self.lazy = variable.Parameter(None)

    src = Net(2.0)
    src.lazy.initialize((3,))
    src.lazy.array[...] = 7
    path = tmp_path / "net.npz"
    save_npz(path, src)
    with np.load(path, allow_pickle=False) as f:
        assert sorted(f.files) == ["lazy", "w"]
    dst = Net(0.0)
    load_npz(path, dst)
    np.testing.assert_array_equal(dst.w.array, np.full((2, 2), 2.0))
    np.testing.assert_array_equal(dst.lazy.array, np.full(3, 7.0))


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickled_none_recognised_for_all_protocols(protocol):
    import pickle

    assert npz_module._pickle_holds_only_none(pickle.dumps(np.asarray(None), protocol))
    nested = np.empty((), dtype=object)
    nested[()] = [None]
    assert not npz_module._pickle_holds_only_none(pickle.dumps(nested, protocol))
    assert not npz_module._pickle_holds_only_none(
        pickle.dumps(np.asarray(3, dtype=object), protocol)
    )
    assert not npz_module._pickle_holds_only_none(b"garbage")


@pytest.mark.parametrize("compression", [True, False])
def test_corrupt_member_names_file_and_key(tmp_path, compression):
    path = tmp_path / "c.npz"

    class Big:
        def serialize(self, s):
            s("w", np.random.RandomState(0).rand(2000))

    save_npz(path, Big(), compression=compression)
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 16] = bytes(16)  # damage the member's payload
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"'w'.*c\.npz"):
        load_npz(path, Big())


def test_module_serialize_returns_dictionary_serializer_target():
    tree = _filled_tree()
    target = npz_module.serialize(tree)
    expected = DictionarySerializer()
    expected.save(tree)
    assert type(target) is dict and sorted(target) == sorted(expected.target)
    assert target["l1/w"] is not None and target["l1/t"] == 7
    assert npz_module.serialize(Tree())["l1/b"].dtype == npz_module.NONE_DTYPE


@pytest.mark.parametrize("compression", [True, False])
def test_save_npz_accepts_a_plain_dict(tmp_path, compression):
    # Chainer's snapshot passes npz.serialize(...)'s dict to savefun.
    path = tmp_path / "d.npz"
    save_npz(path, npz_module.serialize(_filled_tree()), compression=compression)
    loaded = Tree()
    loaded.l2.b = np.zeros(4, dtype=np.int64)
    load_npz(path, loaded)
    assert (loaded.l1.t, loaded.l1.name, loaded.l1.b) == (7, "abc", None)
    np.testing.assert_array_equal(loaded.l2.b, np.arange(4))

    raw = {
        "a/W": np.arange(6.0).reshape(2, 3),
        "epoch": 3,
        "none": None,
        "/lead": np.ones(1, np.float32),
    }
    buf = io.BytesIO()
    save_npz(buf, raw, compression=compression)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as f:
        assert sorted(f.files) == ["/lead", "a/W", "epoch", "none"]  # keys as is
        np.testing.assert_array_equal(f["a/W"], raw["a/W"])
        assert int(f["epoch"]) == 3 and f["/lead"].dtype == np.float32
        assert f["none"].dtype == npz_module.NONE_DTYPE


def test_save_npz_dict_is_pickle_free_and_atomic(tmp_path):
    path = tmp_path / "d.npz"
    save_npz(path, {"w": np.zeros(2)})
    before = path.read_bytes()
    with pytest.raises(TypeError, match="save_npz.*'bad'.*pickle"):
        save_npz(path, {"w": np.ones(2), "bad": {"nested": 1}})
    with pytest.raises(TypeError, match="keys of a dict must be str"):
        save_npz(path, {1: np.ones(2)})
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["d.npz"]


# Names that numpy.savez takes as its own keyword arguments.
_SAVEZ_KEYWORDS = ["file", "allow_pickle", "args", "kwds", "compress"]


@pytest.mark.parametrize("compression", [True, False])
def test_keys_named_like_savez_arguments(tmp_path, compression):
    link = pytest.importorskip("kusari.link")
    variable = pytest.importorskip("kusari.variable")

    class Child(link.Link):
        def __init__(self, fill):
            super().__init__()
            with self.init_scope():
                self.W = variable.Parameter(np.full(2, fill, dtype=np.float32))

    class Net(link.Chain):
        def __init__(self, fill):
            super().__init__()
            with self.init_scope():
                self.file = variable.Parameter(np.full(3, fill, dtype=np.float32))
                self.allow_pickle = variable.Parameter(
                    np.full(1, fill, dtype=np.float32)
                )
                self.kwds = Child(fill)
            self.add_persistent("args", int(fill))

    path = tmp_path / "net.npz"
    save_npz(path, Net(2.0), compression=compression)
    with np.load(path, allow_pickle=False) as f:
        assert sorted(f.files) == ["allow_pickle", "args", "file", "kwds/W"]
        np.testing.assert_array_equal(f["file"], np.full(3, 2.0))
    with zipfile.ZipFile(path) as zf:  # plain npz members, as numpy writes them
        assert sorted(zf.namelist()) == [
            "allow_pickle.npy",
            "args.npy",
            "file.npy",
            "kwds/W.npy",
        ]
        expected = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
        assert {i.compress_type for i in zf.infolist()} == {expected}
    dst = Net(0.0)
    load_npz(path, dst)
    np.testing.assert_array_equal(dst.file.array, np.full(3, 2.0))
    np.testing.assert_array_equal(dst.allow_pickle.array, np.full(1, 2.0))
    np.testing.assert_array_equal(dst.kwds.W.array, np.full(2, 2.0))
    assert dst.args == 2

    raw = {key: np.arange(i + 1) for i, key in enumerate(_SAVEZ_KEYWORDS)}
    raw["none"] = None
    buf = io.BytesIO()
    save_npz(buf, raw, compression=compression)
    buf.seek(0)
    with np.load(buf, allow_pickle=False) as f:
        assert sorted(f.files) == sorted(raw)
        for i, key in enumerate(_SAVEZ_KEYWORDS):
            np.testing.assert_array_equal(f[key], np.arange(i + 1))
        assert f["none"].dtype == npz_module.NONE_DTYPE


def test_save_writes_npz_that_numpy_reads_like_savez(tmp_path):
    # Same member layout and array bytes as numpy.savez, so any npz reader
    # (numpy.load, Chainer's load_npz) accepts the file.
    arrays = {
        "a/W": np.arange(6.0).reshape(2, 3),
        "n": np.array(4),
        "s": np.array("héllo"),
        "e": np.zeros((0, 2), np.float16),
    }
    ours, ref = tmp_path / "ours.npz", tmp_path / "ref.npz"
    save_npz(ours, arrays, compression=False)
    np.savez(ref, **arrays)
    with zipfile.ZipFile(ours) as a, zipfile.ZipFile(ref) as b:
        assert sorted(a.namelist()) == sorted(b.namelist())
        for name in b.namelist():
            assert a.read(name) == b.read(name), name
