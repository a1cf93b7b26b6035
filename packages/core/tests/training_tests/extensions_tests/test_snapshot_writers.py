"""Snapshot writers: atomic, durable saves in this thread, a thread, a
process, or through a queue."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from _training_helpers import build_real_trainer, names

from kusari.serializers import load_npz
from kusari.training import extensions
from kusari.training.extensions import snapshot_writers


# Python >= 3.12 warns when forking a process that has threads.
@pytest.mark.filterwarnings("ignore:.*use of fork\\(\\) may lead to deadlocks")
@pytest.mark.parametrize(
    "writer_cls",
    [
        snapshot_writers.SimpleWriter,
        snapshot_writers.ThreadWriter,
        snapshot_writers.ProcessWriter,
        snapshot_writers.ThreadQueueWriter,
        snapshot_writers.ProcessQueueWriter,
    ],
)
def test_writers(tmp_path, writer_cls):
    trainer = build_real_trainer(tmp_path, stop=(6, "iteration"))
    writer = writer_cls()
    trainer.extend(
        extensions.snapshot(writer=writer, n_retains=2), trigger=(2, "iteration")
    )
    trainer.run()
    out = tmp_path / "result"
    assert names(out) == ["snapshot_iter_4", "snapshot_iter_6"]
    fresh = build_real_trainer(tmp_path, stop=(6, "iteration"), seed=9)
    load_npz(str(out / "snapshot_iter_6"), fresh)
    np.testing.assert_array_equal(
        fresh.updater.get_optimizer("main").target.W1.array,
        trainer.updater.get_optimizer("main").target.W1.array,
    )


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


def test_save_fsyncs_before_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.fstat(fd).st_ino))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("replace", os.stat(src).st_ino))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)

    def savefun(path, target):  # a plain write, which syncs nothing itself
        with open(path, "wb") as f:
            np.save(f, target["w"])

    writer = snapshot_writers.SimpleWriter(savefun=savefun)
    writer("snap.npy", str(tmp_path), {"w": np.arange(3.0)})
    inode = os.stat(tmp_path / "snap.npy").st_ino
    renamed = events.index(("replace", inode))
    assert ("fsync", inode) in events[:renamed]
    assert ("fsync", os.stat(tmp_path).st_ino) in events[renamed:]
    np.testing.assert_array_equal(np.load(tmp_path / "snap.npy"), [0, 1, 2])


def test_failed_save_keeps_the_old_file_and_leaves_no_litter(tmp_path):
    (tmp_path / "snap").write_text("previous")

    def savefun(path, target):
        with open(path, "w") as f:
            f.write("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        snapshot_writers.SimpleWriter(savefun=savefun)("snap", str(tmp_path), {})
    assert names(tmp_path) == ["snap"]
    assert (tmp_path / "snap").read_text() == "previous"


def test_a_savefun_that_writes_a_folder_is_renamed_whole(tmp_path):
    def savefun(path, target):
        os.mkdir(path)
        for name, value in target.items():
            np.save(os.path.join(path, name + ".npy"), value)

    snapshot_writers.SimpleWriter(savefun=savefun)(
        "snapdir", str(tmp_path), {"a": np.arange(2), "b": np.ones(3)}
    )
    assert names(tmp_path) == ["snapdir"]
    assert names(tmp_path / "snapdir") == ["a.npy", "b.npy"]


def test_base_writer_needs_a_call():
    with pytest.raises(NotImplementedError):
        snapshot_writers.Writer()("x", ".", {})


def test_thread_queue_writer_runs_a_custom_task_in_its_thread(tmp_path):
    calls = []

    def task(filename, outdir, target):
        calls.append((filename, outdir, target["k"], threading.current_thread()))

    writer = snapshot_writers.ThreadQueueWriter(task=task)
    writer("a", str(tmp_path), {"k": 1})
    writer("b", str(tmp_path), {"k": 2})
    writer.finalize()
    writer.finalize()  # a second finalize is a no-op
    assert [c[:3] for c in calls] == [("a", str(tmp_path), 1), ("b", str(tmp_path), 2)]
    assert all(c[3] is not threading.main_thread() for c in calls)


def test_thread_writer_finishes_each_write_before_the_next(tmp_path):
    order = []
    gate = threading.Event()

    def savefun(path, target):
        order.append(("start", target["i"]))
        if target["i"] == 0:
            gate.wait(5)
        with open(path, "w") as f:
            f.write(str(target["i"]))
        order.append(("end", target["i"]))

    writer = snapshot_writers.ThreadWriter(savefun=savefun)
    writer("s0", str(tmp_path), {"i": 0})
    threading.Timer(0.2, gate.set).start()
    writer("s1", str(tmp_path), {"i": 1})  # waits for s0
    writer.finalize()
    assert order == [("start", 0), ("end", 0), ("start", 1), ("end", 1)]
    assert names(tmp_path) == ["s0", "s1"]


def test_unusual_names_are_never_cleaned(tmp_path):
    (tmp_path / "tmpsub").mkdir()
    for fmt in ("sub/snap_{.updater.iteration}", "snap_{{x}}"):
        assert (
            snapshot_writers._remove_stale_temporaries(str(tmp_path), fmt, before=2**40)
            == []
        )
