"""Smoke test of examples/mnist/train_mnist.py: a few iterations, all outputs."""

from __future__ import annotations

import json


def test_train_mnist_runs_and_writes_results(
    dev, load_example, offline, tmp_path, capsys
):
    example = load_example("mnist/train_mnist.py")
    out = tmp_path / "result"
    example.main(["--epoch", "1", "--unit", "32", "--out", str(out),
                  "--max-iterations", "60", "--batchsize", "100", *dev])
    captured = capsys.readouterr()
    assert "GENERATED" in captured.err
    assert "Final test accuracy" in captured.out
    log = json.loads((out / "log").read_text())
    assert log and "main/loss" in log[-1]
    assert (out / "cg.dot").exists()
    assert list(out.glob("snapshot_iter_*"))


def test_train_mnist_help(load_example, capsys):
    import pytest

    example = load_example("mnist/train_mnist.py")
    with pytest.raises(SystemExit) as e:
        example.main(["--help"])
    assert e.value.code == 0
    assert "--device" in capsys.readouterr().out
