"""snapshot / snapshot_object (``_snapshot``): files, retention, autoload, and
the cleanup of what killed writes leave behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from _training_helpers import build_real_trainer, names

from kusari.training import extensions
from kusari.training.extensions import snapshot_writers

HOUR_AGO = time.time() - 3600


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
    trainer.extend(
        extensions.snapshot_object(model, "model_{.updater.iteration}.npz"),
        trigger=(2, "iteration"),
    )
    trainer.extend(
        extensions.snapshot(filename=lambda t: f"cb{t.updater.iteration}"),
        trigger=(4, "iteration"),
    )
    trainer.run()
    out = tmp_path / "result"
    assert names(out) == ["cb4", "model_2.npz", "model_4.npz"]
    w1 = np.load(out / "model_4.npz")["W1"]
    np.testing.assert_array_equal(w1, model.W1.array)


def test_snapshot_condition_and_on_error(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(6, "iteration"))
    trainer.extend(
        extensions.snapshot(condition=lambda: False), trigger=(1, "iteration")
    )

    def explode(tr):
        if tr.updater.iteration == 3:
            raise RuntimeError("stop")

    trainer.extend(explode, name="explode")
    trainer.extend(
        extensions.snapshot(filename="on_error", snapshot_on_error=True),
        trigger=(100, "iteration"),
    )
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
        third.updater.get_optimizer("main").target.W1.array,
    )


def test_snapshot_argument_errors():
    with pytest.raises(TypeError):
        extensions.snapshot(savefun=print, writer=snapshot_writers.SimpleWriter())
    with pytest.raises(TypeError):
        extensions.snapshot(bogus=1)
    with pytest.warns(DeprecationWarning):
        assert extensions.snapshot(num_retain=3).n_retains == 3


def test_latest_snapshot_ties_broken_by_number(tmp_path):
    from kusari.training.extensions import _snapshot

    for name in ("snapshot_iter_9", "snapshot_iter_10", "other"):
        (tmp_path / name).write_text("x")
        os.utime(tmp_path / name, ns=(10**9, 10**9))
    fmt = "snapshot_iter_{.updater.iteration}"
    assert _snapshot._find_latest_snapshot(fmt, str(tmp_path)) == "snapshot_iter_10"
    assert list(_snapshot._find_stale_snapshots(fmt, str(tmp_path), 1)) == [
        "snapshot_iter_9"
    ]


def test_savefun_receives_a_dict_like_chainer(tmp_path):
    got = []

    def savefun(path, target):
        got.append(sorted(target)[:2])
        np.savez(path, **target)

    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(
        extensions.snapshot(savefun=savefun, filename="s.npz"), trigger=(1, "iteration")
    )
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
    trainer.extend(
        extensions.snapshot(savefun=savefun, filename="m.npz"), trigger=(2, "iteration")
    )
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
    trainer.extend(
        extensions.snapshot_object(model, "m.h5", savefun=save_hdf5),
        trigger=(3, "iteration"),
    )
    trainer.run()
    fresh = build_real_trainer(tmp_path, stop=(3, "iteration"), seed=9)
    fresh_model = fresh.updater.get_optimizer("main").target
    load_hdf5(str(tmp_path / "result" / "m.h5"), fresh_model)
    for (n, p), (_, q) in zip(model.namedparams(), fresh_model.namedparams()):
        np.testing.assert_array_equal(p.array, q.array, err_msg=n)


def _litter(out, name, files=(), old=True, is_dir=True):
    path = out / name
    if is_dir:
        path.mkdir()
        for child in files:
            (path / child).write_bytes(b"partial")
            if old:
                os.utime(path / child, (HOUR_AGO, HOUR_AGO))
    else:
        path.write_bytes(b"x")
    if old:
        os.utime(path, (HOUR_AGO, HOUR_AGO))


def test_stale_temporaries_are_removed_at_start(tmp_path):
    out = tmp_path / "result"
    out.mkdir()
    # Left by killed writes of this trainer's snapshots: removed.
    _litter(out, "tmpsnapshot_iter_7abcdefgh", ["snapshot_iter_7"])
    _litter(out, "tmpsnapshot_iter_12x_y1z2w3")
    _litter(out, "tmpsnapshot_iter_3k2j4h5g6", [".snapshot_iter_3.ab12cd.tmp"])
    # Everything else stays.
    keep = {
        "tmpsnapshot_iter_9qwertyui": {"files": ["snapshot_iter_9"], "old": False},
        "tmpsnapshot_iter_8abcdefgh": {"files": ["notes.txt"]},
        "tmpsnapshot_iter_5abcdefgh": {"is_dir": False},
        "tmpsnapshot_iter_6abc": {},
        "tmpmodel_3abcdefgh": {"files": ["model_3"]},
        "tmpother12345678": {},
        "snapshot_iter_3": {"is_dir": False},
        "log": {"is_dir": False},
    }
    for name, how in keep.items():
        _litter(out, name, **how)
    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(extensions.snapshot(), trigger=(10, "iteration"))
    trainer.run()
    assert names(out) == sorted(keep)
    assert (out / "tmpsnapshot_iter_9qwertyui" / "snapshot_iter_9").exists()


def test_callable_filename_cleans_nothing(tmp_path):
    out = tmp_path / "result"
    out.mkdir()
    _litter(out, "tmpsnapshot_iter_7abcdefgh", ["snapshot_iter_7"])
    trainer = build_real_trainer(tmp_path, stop=(1, "iteration"))
    trainer.extend(
        extensions.snapshot(filename=lambda t: "snap"), trigger=(10, "iteration")
    )
    trainer.run()
    assert names(out) == ["tmpsnapshot_iter_7abcdefgh"]


_CHILD = textwrap.dedent(
    """
    import os, sys, time
    from kusari.training.extensions import snapshot_writers

    out, ready = sys.argv[1], sys.argv[2]

    def savefun(path, target):
        with open(path, "wb") as f:
            f.write(b"half a snapshot")
            f.flush()
            open(ready, "w").close()
            time.sleep(60)

    snapshot_writers.SimpleWriter(savefun=savefun)("snapshot_iter_5", out, {})
    """
)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_litter_of_a_killed_write_is_removed(tmp_path, monkeypatch):
    out = tmp_path / "result"
    out.mkdir()
    ready = tmp_path / "ready"
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(out), str(ready)])
    try:
        deadline = time.monotonic() + 60
        while not ready.exists():
            assert child.poll() is None, "the writer exited early"
            assert time.monotonic() < deadline, "the writer never started"
            time.sleep(0.05)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    (litter,) = names(out)
    assert litter.startswith("tmpsnapshot_iter_5")
    # The next trainer starts in a later process than the killed one.
    later = time.time() + 1
    monkeypatch.setattr(snapshot_writers, "_process_start_time", lambda: later)
    trainer = build_real_trainer(tmp_path, stop=(2, "iteration"))
    trainer.extend(extensions.snapshot(), trigger=(2, "iteration"))
    trainer.run()
    assert names(out) == ["snapshot_iter_2"]


def test_defaults_run_last_each_epoch():
    ext = extensions.snapshot()
    assert ext.trigger == (1, "epoch")
    assert ext.priority < 0  # after every extension that edits the state
    assert not ext.restores_state
    assert extensions.snapshot(autoload=True).restores_state


def test_autoload_without_a_snapshot_starts_fresh(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(2, "iteration"))
    trainer.extend(extensions.snapshot(autoload=True), trigger=(5, "iteration"))
    trainer.run()
    assert trainer.updater.iteration == 2
    assert names(tmp_path / "result") == []


def test_autoload_loads_an_hdf5_snapshot_by_its_signature(tmp_path):
    pytest.importorskip("h5py")
    from kusari.serializers import save_hdf5

    seen = []
    first = build_real_trainer(tmp_path, stop=(3, "iteration"))
    first.extend(extensions.snapshot(savefun=save_hdf5), trigger=(3, "iteration"))
    first.extend(lambda t: seen.append(t.updater.iteration), name="spy")
    first.run()
    # The default name holds no ".h5": the format is told by the content.
    assert names(tmp_path / "result") == ["snapshot_iter_3"]
    second = build_real_trainer(tmp_path, stop=(5, "iteration"), seed=8)
    second.extend(
        extensions.snapshot(autoload=True, savefun=save_hdf5), trigger=(3, "iteration")
    )
    second.extend(lambda t: seen.append(t.updater.iteration), name="spy")
    second.run()
    assert seen == [1, 2, 3, 4, 5]


def test_snapshot_object_autoload_restores_only_the_target(tmp_path):
    first = build_real_trainer(tmp_path, stop=(2, "iteration"))
    model = first.updater.get_optimizer("main").target
    first.extend(
        extensions.snapshot_object(model, "model_{.updater.iteration}"),
        trigger=(2, "iteration"),
    )
    first.run()
    second = build_real_trainer(tmp_path, stop=(1, "iteration"), seed=6)
    fresh = second.updater.get_optimizer("main").target
    second.extend(
        extensions.snapshot_object(fresh, "model_{.updater.iteration}", autoload=True),
        trigger=(100, "iteration"),
    )
    loaded = []
    second.extend(
        lambda t: loaded.append(fresh.W1.array.copy()),
        name="spy",
        call_before_training=True,
        trigger=(100, "iteration"),
    )
    second.run()
    np.testing.assert_array_equal(loaded[0], model.W1.array)
    assert second.updater.iteration == 1  # the trainer itself was not resumed


def test_n_retains_keeps_other_files(tmp_path):
    out = tmp_path / "result"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    trainer = build_real_trainer(tmp_path, stop=(4, "iteration"))
    trainer.extend(extensions.snapshot(n_retains=1), trigger=(1, "iteration"))
    trainer.run()
    assert names(out) == ["notes.txt", "snapshot_iter_4"]
