"""A run killed with SIGKILL and restarted ends bit-identical to a clean run.

The training script (written below) trains a tiny MLP with a shuffling
iterator (uneven batches, so epochs end mid-batch), Adam with a weight-decay
hook, an ExponentialShift on ``alpha`` and a LogReport, and takes
``snapshot(autoload=True)`` every 10 iterations. Restarting the same command
after a SIGKILL must resume from the newest snapshot: model, optimizer
state, iterator position and order, the order sampler's random state, the
triggers and the extensions' state all come from the snapshot.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

SCRIPT = r"""
import json
import sys
import time

import numpy as np

import kusari
import kusari.functions as F
from kusari import iterators, optimizer_hooks, optimizers, reporter, training
from kusari.training import extensions

out, final, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
np.random.seed(0)


class MLP(kusari.Chain):
    def __init__(self):
        super().__init__()
        rng = np.random.RandomState(1)
        with self.init_scope():
            self.W1 = kusari.Parameter(rng.randn(8, 4).astype(np.float32) * 0.5)
            self.b1 = kusari.Parameter(np.zeros(8, dtype=np.float32))
            self.W2 = kusari.Parameter(rng.randn(2, 8).astype(np.float32) * 0.5)
            self.b2 = kusari.Parameter(np.zeros(2, dtype=np.float32))

    def forward(self, x, t):
        h = F.relu(F.linear(x, self.W1, self.b1))
        loss = F.softmax_cross_entropy(F.linear(h, self.W2, self.b2), t)
        reporter.report({"loss": loss}, self)
        return loss


rng = np.random.RandomState(2)
x = rng.randn(64, 4).astype(np.float32)
t = (x.sum(axis=1) > 0).astype(np.int32)
dataset = list(zip(x, t))
model = MLP()
opt = optimizers.Adam(alpha=0.02).setup(model)
opt.add_hook(optimizer_hooks.WeightDecay(1e-3))
it = iterators.SerialIterator(dataset, 10, shuffle=True)
updater = training.updaters.StandardUpdater(it, opt)
trainer = training.Trainer(updater, (60, "iteration"), out=out)
trainer.extend(extensions.LogReport(trigger=(5, "iteration")))
trainer.extend(extensions.ExponentialShift("alpha", 0.8), trigger=(7, "iteration"))
trainer.extend(extensions.snapshot(autoload=True, n_retains=2),
               trigger=(10, "iteration"))
if delay:
    trainer.extend(lambda tr: time.sleep(delay), name="slow")
trainer.run()
arrays = {name.strip("/"): p.array for name, p in model.namedparams()}
arrays["alpha"] = np.array(opt.alpha)
arrays["epoch"] = np.array(opt.epoch)
np.savez(final, **arrays)
"""


def _run(script, out, final, delay, **kwargs):
    return subprocess.Popen(
        [sys.executable, str(script), str(out), str(final), str(delay)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
def test_sigkill_then_rerun_is_bit_identical(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)

    clean = _run(script, tmp_path / "clean", tmp_path / "clean.npz", 0)
    out, err = clean.communicate(timeout=120)
    assert clean.returncode == 0, err.decode()

    killed_out = tmp_path / "killed"
    victim = _run(script, killed_out, tmp_path / "never.npz", 0.05)
    first = killed_out / "snapshot_iter_10"
    deadline = time.monotonic() + 90
    while not first.exists():
        assert victim.poll() is None, victim.communicate()[1].decode()
        assert time.monotonic() < deadline, "no snapshot appeared"
        time.sleep(0.01)
    time.sleep(0.3)  # a few more iterations past the snapshot
    os.kill(victim.pid, signal.SIGKILL)
    victim.communicate()
    assert victim.returncode == -signal.SIGKILL
    assert not (tmp_path / "never.npz").exists()

    resumed = _run(script, killed_out, tmp_path / "resumed.npz", 0.05)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err.decode()

    a = np.load(tmp_path / "clean.npz")
    b = np.load(tmp_path / "resumed.npz")
    assert sorted(a.files) == sorted(b.files)
    for name in a.files:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)
    # n_retains=2 keeps only the newest snapshots.
    snaps = sorted(p.name for p in killed_out.iterdir() if p.name.startswith("snap"))
    assert snaps == ["snapshot_iter_50", "snapshot_iter_60"]
