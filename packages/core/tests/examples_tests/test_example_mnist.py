"""Smoke test of examples/mnist/train_mnist.py: a few iterations, all outputs."""

from __future__ import annotations

import json


def test_train_mnist_runs_and_writes_results(
    dev, load_example, offline, tmp_path, capsys
):
    example = load_example("mnist/train_mnist.py")
    out = tmp_path / "result"
    example.main(
        [
            "--epoch",
            "1",
            "--unit",
            "32",
            "--out",
            str(out),
            "--max-iterations",
            "60",
            "--batchsize",
            "100",
            *dev,
        ]
    )
    captured = capsys.readouterr()
    # Offline, the real fallback: scikit-learn's bundled UCI digits.
    assert "UCI handwritten digits" in captured.err
    assert "UCI digits (8x8, from scikit-learn) (1437 train / 360 test" in captured.out
    assert "Final test accuracy" in captured.out
    args = json.loads((out / "args").read_text())
    assert args["unit"] == 32 and args["dataset"] == "auto"
    log = json.loads((out / "log").read_text())
    assert log and "main/loss" in log[-1]
    assert (out / "cg.dot").exists()
    assert list(out.glob("snapshot_iter_*"))


def test_train_mnist_without_any_dataset_says_what_to_do(
    load_example, offline, tmp_path, monkeypatch
):
    import sys

    import pytest

    for name in ("sklearn", "sklearn.datasets"):  # as if not installed
        monkeypatch.setitem(sys.modules, name, None)
    example = load_example("mnist/train_mnist.py")
    with pytest.raises(SystemExit, match="pip install scikit-learn"):
        example.main(["--out", str(tmp_path / "r"), "--max-iterations", "1"])


def test_train_mnist_help(load_example, capsys):
    import pytest

    example = load_example("mnist/train_mnist.py")
    with pytest.raises(SystemExit) as e:
        example.main(["--help"])
    assert e.value.code == 0
    assert "--device" in capsys.readouterr().out
