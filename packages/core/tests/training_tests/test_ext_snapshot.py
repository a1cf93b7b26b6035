"""snapshot / snapshot_object and the snapshot writers."""

from __future__ import annotations

import os

import numpy as np
import pytest
from _training_helpers import build_real_trainer

from kusari.serializers import load_npz
from kusari.training import extensions
from kusari.training.extensions import snapshot_writers


def names(path):
    return sorted(p.name for p in path.iterdir())


def test_snapshot_files_and_n_retains(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(10, "iteration"))
    trainer.extend(extensions.snapshot(n_retains=2), trigger=(3, "iteration"))
    trainer.run()
    out = tmp_path / "result"
    assert names(out) == ["snapshot_iter_6", "snapshot_iter_9"]
    data = np.load(out / "snapshot_iter_9")
    assert int(data["updater/iteration"]) == 9
    assert "updater/model:main/W1" in data.files


def test_snapshot_object_and_callable_filename(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(4, "iteration"))
    model = trainer.updater.get_optimizer("main").target
    trainer.extend(extensions.snapshot_object(model, "model_{.updater.iteration}.npz"),
                   trigger=(2, "iteration"))
    trainer.extend(extensions.snapshot(filename=lambda t: f"cb{t.updater.iteration}"),
                   trigger=(4, "iteration"))
    trainer.run()
    out = tmp_path / "result"
    assert names(out) == ["cb4", "model_2.npz", "model_4.npz"]
    w1 = np.load(out / "model_4.npz")["W1"]
    np.testing.assert_array_equal(w1, model.W1.array)


def test_snapshot_condition_and_on_error(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(6, "iteration"))
    trainer.extend(extensions.snapshot(condition=lambda: False),
                   trigger=(1, "iteration"))

    def explode(tr):
        if tr.updater.iteration == 3:
            raise RuntimeError("stop")

    trainer.extend(explode, name="explode")
    trainer.extend(extensions.snapshot(filename="on_error", snapshot_on_error=True),
                   trigger=(100, "iteration"))
    with pytest.raises(RuntimeError):
        trainer.run(show_loop_exception_msg=False)
    assert names(tmp_path / "result") == ["on_error"]


def test_autoload_resumes_trainer(tmp_path):
    first = build_real_trainer(tmp_path, stop=(5, "iteration"))
    first.extend(extensions.snapshot(), trigger=(5, "iteration"))
    first.run()
    second = build_real_trainer(tmp_path, stop=(8, "iteration"), seed=7)
    second.extend(extensions.snapshot(autoload=True), trigger=(5, "iteration"))
    second.run()
    assert second.updater.iteration == 8
    third = build_real_trainer(tmp_path, stop=(8, "iteration"))
    third.extend(extensions.snapshot(autoload=False), trigger=(5, "iteration"))
    third.run()
    np.testing.assert_array_equal(
        second.updater.get_optimizer("main").target.W1.array,
        third.updater.get_optimizer("main").target.W1.array)


def test_snapshot_argument_errors():
    with pytest.raises(TypeError):
        extensions.snapshot(savefun=print, writer=snapshot_writers.SimpleWriter())
    with pytest.raises(TypeError):
        extensions.snapshot(bogus=1)
    with pytest.warns(DeprecationWarning):
        assert extensions.snapshot(num_retain=3).n_retains == 3


# Python >= 3.12 warns when forking a process that has threads.
@pytest.mark.filterwarnings("ignore:.*use of fork\\(\\) may lead to deadlocks")
@pytest.mark.parametrize("writer_cls", [
    snapshot_writers.SimpleWriter, snapshot_writers.ThreadWriter,
    snapshot_writers.ProcessWriter, snapshot_writers.ThreadQueueWriter,
    snapshot_writers.ProcessQueueWriter])
def test_writers(tmp_path, writer_cls):
    trainer = build_real_trainer(tmp_path, stop=(6, "iteration"))
    writer = writer_cls()
    trainer.extend(extensions.snapshot(writer=writer, n_retains=2),
                   trigger=(2, "iteration"))
    trainer.run()
    out = tmp_path / "result"
    assert names(out) == ["snapshot_iter_4", "snapshot_iter_6"]
    fresh = build_real_trainer(tmp_path, stop=(6, "iteration"), seed=9)
    load_npz(str(out / "snapshot_iter_6"), fresh)
    np.testing.assert_array_equal(
        fresh.updater.get_optimizer("main").target.W1.array,
        trainer.updater.get_optimizer("main").target.W1.array)


def test_writer_with_custom_savefun(tmp_path):
    saved = []

    def savefun(path, target, **kwargs):
        saved.append(kwargs)
        with open(path, "w") as f:
            f.write("x")

    writer = snapshot_writers.SimpleWriter(savefun=savefun, flag=1)
    writer("name", str(tmp_path), object())
    assert (tmp_path / "name").read_text() == "x" and saved == [{"flag": 1}]
    assert names(tmp_path) == ["name"]


def test_latest_snapshot_ties_broken_by_number(tmp_path):
    from kusari.training.extensions import _snapshot

    for name in ("snapshot_iter_9", "snapshot_iter_10", "other"):
        (tmp_path / name).write_text("x")
        os.utime(tmp_path / name, ns=(10**9, 10**9))
    fmt = "snapshot_iter_{.updater.iteration}"
    assert _snapshot._find_latest_snapshot(fmt, str(tmp_path)) == "snapshot_iter_10"
    assert list(_snapshot._find_stale_snapshots(fmt, str(tmp_path), 1)) == [
        "snapshot_iter_9"]


def test_savefun_receives_a_dict_like_chainer(tmp_path):
    got = []

    def savefun(path, target):
        got.append(sorted(target)[:2])
        np.savez(path, **target)

    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.snapshot(savefun=savefun, filename="s.npz"),
                   trigger=(1, "iteration"))
    trainer.run()
    assert got and all(isinstance(k, str) for k in got[0])
    assert "updater/iteration" in np.load(tmp_path / "result" / "s.npz").files


def test_chainer_style_savefun_saves_a_filtered_plain_dict(tmp_path):
    # Chainer code filters the serialized dict and hands a plain dict to
    # save_npz; that dict has no serialize method.
    from kusari.serializers import save_npz

    def savefun(path, target):
        save_npz(path, {k: v for k, v in target.items() if "model:" in k})

    trainer = build_real_trainer(tmp_path, stop=(2, "iteration"))
    trainer.extend(extensions.snapshot(savefun=savefun, filename="m.npz"),
                   trigger=(2, "iteration"))
    trainer.run()
    data = np.load(tmp_path / "result" / "m.npz", allow_pickle=False)
    assert data.files and all("model:" in k for k in data.files)
    model = trainer.updater.get_optimizer("main").target
    np.testing.assert_array_equal(data["updater/model:main/W1"], model.W1.array)


def test_snapshot_payload_also_saves_through_serialize_protocol(tmp_path):
    # save_hdf5 only speaks the serialize protocol; the snapshot payload
    # replays its items through it.
    pytest.importorskip("h5py")
    from kusari.serializers import load_hdf5, save_hdf5

    trainer = build_real_trainer(tmp_path, stop=(3, "iteration"))
    model = trainer.updater.get_optimizer("main").target
    trainer.extend(extensions.snapshot_object(model, "m.h5", savefun=save_hdf5),
                   trigger=(3, "iteration"))
    trainer.run()
    fresh = build_real_trainer(tmp_path, stop=(3, "iteration"), seed=9)
    fresh_model = fresh.updater.get_optimizer("main").target
    load_hdf5(str(tmp_path / "result" / "m.h5"), fresh_model)
    for (n, p), (_, q) in zip(model.namedparams(), fresh_model.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=n)
