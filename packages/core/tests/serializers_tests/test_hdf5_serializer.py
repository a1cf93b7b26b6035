import builtins
import json

import numpy as np
import pytest

import kusari.serializers.hdf5 as hdf5_module
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
        # A missing group is only an error once a value is read from it.
        missing = HDF5Deserializer(f)["g"]["h"]
        with pytest.raises(KeyError, match=r"'z'.*'/g/h' \(missing\).*m\.h5"):
            missing("z", 0)
        with pytest.raises(KeyError, match="'x'.*dataset, not a group"):
            HDF5Deserializer(f)["x"]
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
    # Chainer raised RuntimeError here, and code written for it catches that.
    with pytest.raises(RuntimeError, match="load_hdf5 needs h5py"):
        load_hdf5(tmp_path / "m.h5", Tree())
    assert hdf5_module._available is False


def test_available_flag():
    # Chainer's `hdf5._available`, which Chainer-style tests skip on.
    assert hdf5_module._available is True
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        hdf5_module.nothing  # noqa: B018


# --- a whole Trainer round-trips through save_hdf5 / load_hdf5 -------------


def _make_trainer(out, seed, autoload=False):
    import kusari
    import kusari.functions as F
    from kusari import iterators, optimizers, reporter, training
    from kusari.training import extensions

    class MLP(kusari.Chain):
        def __init__(self):
            super().__init__()
            rng = np.random.RandomState(1)
            with self.init_scope():
                self.W1 = kusari.Parameter(rng.randn(6, 3).astype(np.float32) * 0.5)
                self.b1 = kusari.Parameter(np.zeros(6, dtype=np.float32))
                self.W2 = kusari.Parameter(rng.randn(2, 6).astype(np.float32) * 0.5)
                self.b2 = kusari.Parameter(np.zeros(2, dtype=np.float32))

        def forward(self, x, t):
            h = F.relu(F.linear(x, self.W1, self.b1))
            loss = F.softmax_cross_entropy(F.linear(h, self.W2, self.b2), t)
            reporter.report({"loss": loss}, self)
            return loss

    data_rng = np.random.RandomState(3)
    x = data_rng.randn(23, 3).astype(np.float32)
    dataset = list(zip(x, (x[:, 0] > 0).astype(np.int32)))
    model = MLP()
    opt = optimizers.Adam(alpha=0.05).setup(model)
    # Uneven batches (23 = 3 * 7 + 2) so that epochs end mid-batch; a seeded
    # sampler so that the two trainers start from different orders.
    sampler = iterators.ShuffleOrderSampler(np.random.RandomState(seed))
    it = iterators.SerialIterator(dataset, 7, order_sampler=sampler)
    updater = training.updaters.StandardUpdater(it, opt)
    trainer = training.Trainer(updater, (11, "iteration"), out=str(out))
    trainer.extend(extensions.LogReport(trigger=(2, "iteration")))
    trainer.extend(extensions.ExponentialShift("alpha", 0.7), trigger=(3, "iteration"))
    trainer.extend(
        extensions.snapshot(savefun=save_hdf5, autoload=autoload),
        trigger=(5, "iteration"),
    )
    return trainer


def _state(trainer):
    """Everything a resume must restore, minus wall-clock times."""
    from kusari.serializers import npz

    state = {k: np.array(v, copy=True) for k, v in npz.serialize(trainer).items()}
    state.pop("_snapshot_elapsed_time")
    log = json.loads(str(state.pop("extensions/LogReport/_log")))
    for entry in log:
        entry.pop("elapsed_time")
    return state, log


def test_trainer_snapshot_round_trip(tmp_path):
    clean = _make_trainer(tmp_path / "clean", seed=0)
    clean.run()
    snapshot = tmp_path / "clean" / "snapshot_iter_5"
    with h5py.File(snapshot, "r") as f:
        assert "updater/iterator:main/order" in f

    resumed = _make_trainer(tmp_path / "resumed", seed=42)
    load_hdf5(snapshot, resumed)
    assert resumed.updater.iteration == 5
    resumed.run()

    expected, expected_log = _state(clean)
    got, got_log = _state(resumed)
    assert sorted(got) == sorted(expected)
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)
    assert got_log == expected_log and len(got_log) == 5
    assert resumed.updater.get_iterator("main").epoch_detail == pytest.approx(
        11 * 7 / 23
    )


def test_trainer_snapshot_autoload(tmp_path):
    import shutil

    clean = _make_trainer(tmp_path / "clean", seed=0)
    clean.run()
    (tmp_path / "resumed").mkdir()
    shutil.copy(tmp_path / "clean" / "snapshot_iter_5", tmp_path / "resumed")
    resumed = _make_trainer(tmp_path / "resumed", seed=42, autoload=True)
    resumed.run()
    expected, expected_log = _state(clean)
    got, got_log = _state(resumed)
    for key in expected:
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)
    assert got_log == expected_log


class Everything:
    """Every kind of value the NPZ serializer round-trips, plus empty groups."""

    def __init__(self, fill=0):
        self.arrays = {
            "f32": np.full((2, 3), fill, np.float32),
            "f16": np.full(4, fill, np.float16),
            "i8": np.full(3, fill, np.int8),
            "u64": np.full((), fill, np.uint64),
            "bool": np.array([fill % 2 == 0, True]),
            "c128": np.full(2, fill + 1j, np.complex128),
            "empty": np.zeros((0, 3), np.float32),
        }
        self.scalars = {
            "int": fill,
            "float": fill / 4,
            "bool": fill > 0,
            "str": f"s{fill}é",
            "blank": "" if fill else "x",
        }
        self.none = None if fill else np.ones(2)
        self.later = np.arange(3) + fill if fill else None

    def serialize(self, s):
        for key in self.arrays:
            self.arrays[key] = s["arrays"](key, self.arrays[key])
        for key in self.scalars:
            self.scalars[key] = s["scalars"](key, self.scalars[key])
        self.none = s("none", self.none)
        self.later = s("later", self.later)
        s["empty_group"]  # an object that saves nothing
        s["outer"]["inner"]


def _assert_same(a, b):
    assert a.arrays.keys() == b.arrays.keys()
    for key in a.arrays:
        np.testing.assert_array_equal(a.arrays[key], b.arrays[key], err_msg=key)
        assert a.arrays[key].dtype == b.arrays[key].dtype, key
    assert a.scalars == b.scalars
    assert [type(v) for v in a.scalars.values()] == [
        type(v) for v in b.scalars.values()
    ]
    assert a.none is None and b.none is None
    np.testing.assert_array_equal(a.later, b.later)


@pytest.mark.parametrize("as_dict", [False, True], ids=["object", "flat-dict"])
def test_round_trips_what_npz_round_trips(tmp_path, as_dict):
    from kusari.serializers import load_npz, npz, save_npz

    src = Everything(5)
    payload = npz.serialize(src) if as_dict else src
    save_npz(tmp_path / "e.npz", payload)
    save_hdf5(tmp_path / "e.h5", payload)
    via_npz, via_hdf5 = Everything(), Everything()
    load_npz(tmp_path / "e.npz", via_npz)
    load_hdf5(tmp_path / "e.h5", via_hdf5)
    _assert_same(via_npz, src)
    _assert_same(via_hdf5, src)
    with h5py.File(tmp_path / "e.h5", "r") as f:
        assert f["none"].shape is None  # h5py.Empty, as Chainer writes None
        assert f["scalars/str"].dtype.kind == "S"
        assert h5py.check_string_dtype(f["scalars/str"].dtype).encoding == "utf-8"
        # Only an object saved directly leaves its empty groups behind.
        assert ("empty_group" in f) is not as_dict


def test_save_hdf5_dict_keys_must_be_str(tmp_path):
    with pytest.raises(TypeError, match="keys of a dict must be str"):
        save_hdf5(tmp_path / "d.h5", {1: np.ones(2)})
    assert not (tmp_path / "d.h5").exists()


def test_reads_none_sentinel_and_plain_bytes(tmp_path):
    from kusari.serializers import npz

    path = tmp_path / "old.h5"
    with h5py.File(path, "w") as f:
        # The NPZ stand-in for None, as older kusari versions copied it over.
        f.create_dataset("n", data=np.zeros((), npz.NONE_DTYPE))
        f.create_dataset("b", data=np.bytes_(b"abc"))  # untagged bytes
    with h5py.File(path, "r") as f:
        d = HDF5Deserializer(f)
        assert d("n", np.ones(2)) is None
        assert d("b", "") == "abc"
        assert d("b", None) == np.bytes_(b"abc")
