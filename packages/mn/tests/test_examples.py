"""Smoke tests: the examples run under mpiexec on tiny data made here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.mpi

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _tiny_mnist(root: Path, n_train: int = 60, n_test: int = 30) -> None:
    """A learnable stand-in for MNIST in the dataset cache (class = bright row)."""
    cache = root / "pfnet" / "chainer" / "mnist"
    cache.mkdir(parents=True)
    rng = np.random.RandomState(0)
    for name, n in (("train.npz", n_train), ("test.npz", n_test)):
        y = rng.randint(0, 10, n).astype(np.uint8)
        x = rng.randint(0, 60, (n, 28, 28)).astype(np.uint8)
        x[np.arange(n), 2 * y + 3, :] = 255
        np.savez_compressed(cache / name, x=x.reshape(n, 784), y=y)


def test_train_mnist_data_parallel(mpi, mpi_environment, tmp_path):
    _tiny_mnist(tmp_path / "data")
    env = mpi_environment
    env["KUSARI_DATASET_ROOT"] = str(tmp_path / "data")
    out = tmp_path / "result"
    result = mpi(
        3,
        EXAMPLES / "mnist" / "train_mnist.py",
        "--epoch",
        "2",
        "--batchsize",
        "5",
        "--unit",
        "20",
        "--out",
        str(out),
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.output
    assert "Num process (COMM_WORLD): 3" in result.stdout
    assert "validation/main/accuracy" in result.stdout
    assert (out / "log").exists()  # written by rank 0 only


def test_train_mnist_model_parallel(mpi, mpi_environment, tmp_path):
    _tiny_mnist(tmp_path / "data")
    env = mpi_environment
    env["KUSARI_DATASET_ROOT"] = str(tmp_path / "data")
    out = tmp_path / "result"
    result = mpi(
        2,
        EXAMPLES / "mnist" / "train_mnist_model_parallel.py",
        "--epoch",
        "2",
        "--batchsize",
        "10",
        "--unit",
        "16",
        "--out",
        str(out),
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.output
    assert "validation/main/loss" in result.stdout
    assert (out / "log").exists()


def test_train_imagenet_tiny(mpi, mpi_environment, tmp_path):
    data = tmp_path / "imagenet"
    subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "imagenet" / "make_tiny_imagenet.py"),
            str(data),
            "--per-class",
            "4",
            "--size",
            "40",
        ],
        check=True,
        env=mpi_environment,
        timeout=120,
    )
    out = tmp_path / "result"
    result = mpi(
        2,
        EXAMPLES / "imagenet" / "train_imagenet.py",
        str(data / "train.txt"),
        str(data / "val.txt"),
        "--root",
        str(data),
        "--mean",
        str(data / "mean.npy"),
        "--arch",
        "resnet50",
        "--insize",
        "32",
        "--batchsize",
        "8",
        "--val_batchsize",
        "8",
        "--epoch",
        "1",
        "--loaderjob",
        "1",
        "--out",
        str(out),
        timeout=300,
    )
    assert result.returncode == 0, result.output
    assert "Using resnet50 arch" in result.stdout
    assert (out / "model.npz").exists()
    # one snapshot per replica set: rank 0, and rank 1 for the rest
    assert sorted(p.name for p in out.glob("snapshot_epoch_1.*")) == [
        "snapshot_epoch_1.0",
        "snapshot_epoch_1.1",
    ]
