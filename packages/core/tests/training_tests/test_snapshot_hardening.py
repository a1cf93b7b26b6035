"""Snapshot writes under crashes: fsync before the rename, and cleanup of the
temporary folders that killed writes leave behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from _training_helpers import build_real_trainer

from kusari.training import extensions
from kusari.training.extensions import snapshot_writers

HOUR_AGO = time.time() - 3600


def names(path):
    return sorted(p.name for p in path.iterdir())


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
