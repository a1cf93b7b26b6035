"""Smoke tests: every example trains a few iterations and writes its results."""

from __future__ import annotations

import json
import math

import pytest


def _log(out):
    path = out / "log"
    return json.loads(path.read_text()) if path.exists() else []


def test_ptb(dev, load_example, offline, tmp_path, capsys):
    example = load_example("ptb/train_ptb.py")
    perplexity = example.main(
        [
            "--unit",
            "16",
            "--bproplen",
            "5",
            "--batchsize",
            "4",
            "--max-iterations",
            "20",
            "--out",
            str(tmp_path),
            *dev,
        ]
    )
    assert math.isfinite(perplexity) and perplexity < 1000
    assert "GENERATED" in capsys.readouterr().err
    assert _log(tmp_path)


def test_vae(dev, load_example, offline, tmp_path):
    example = load_example("vae/train_vae.py")
    err = example.main(
        [
            "--dim-h",
            "32",
            "--dim-z",
            "4",
            "--batchsize",
            "50",
            "--max-iterations",
            "40",
            "--epoch",
            "1",
            "--out",
            str(tmp_path),
            *dev,
        ]
    )
    assert 0 <= err < 1
    assert any("main/loss" in e for e in _log(tmp_path))


def test_dcgan(dev, load_example, offline, tmp_path):
    example = load_example("dcgan/train_dcgan.py")
    samples = example.main(
        [
            "--ch",
            "16",
            "--batchsize",
            "20",
            "--max-iterations",
            "100",
            "--out",
            str(tmp_path),
            *dev,
        ]
    )
    assert samples.shape == (16, 3, 32, 32)
    entry = _log(tmp_path)[-1]
    assert "gen/loss" in entry and "dis/loss" in entry


def test_word2vec(dev, load_example, offline, tmp_path, capsys):
    example = load_example("word2vec/train_word2vec.py")
    example.main(
        [
            "--unit",
            "8",
            "--window",
            "2",
            "--batchsize",
            "500",
            "--max-iterations",
            "96",
            "--out",
            str(tmp_path),
            *dev,
        ]
    )
    assert "w0" in capsys.readouterr().out
    assert _log(tmp_path)


def test_seq2seq(dev, load_example, tmp_path):
    example = load_example("seq2seq/seq2seq.py")
    exact = example.main(
        [
            "--unit",
            "16",
            "--layer",
            "1",
            "--batchsize",
            "64",
            "--max-iterations",
            "43",
            "--out",
            str(tmp_path),
            *dev,
        ]
    )
    assert 0 <= exact <= 1
    assert _log(tmp_path)


def test_recursive(dev, load_example, tmp_path):
    example = load_example("recursive/train_recursive.py")
    accuracy = example.main(
        [
            "--unit",
            "8",
            "--batchsize",
            "25",
            "--max-iterations",
            "20",
            "--out",
            str(tmp_path),
            *dev,
        ]
    )
    assert 0 <= accuracy <= 1
    assert _log(tmp_path)


def test_stochastic_depth(dev, load_example, offline, tmp_path):
    example = load_example("stochastic_depth/train_stochastic_depth.py")
    accuracy = example.main(
        [
            "--blocks",
            "2",
            "--channels",
            "4",
            "--batchsize",
            "50",
            "--max-iterations",
            "40",
            "--epoch",
            "1",
            "--out",
            str(tmp_path),
            *dev,
        ]
    )
    assert 0 <= accuracy <= 1


def test_cifar(dev, load_example, offline, tmp_path):
    example = load_example("cifar/train_cifar.py")
    accuracy = example.main(
        [
            "--width",
            "0.0625",
            "--batchsize",
            "50",
            "--max-iterations",
            "40",
            "--epoch",
            "1",
            "--out",
            str(tmp_path),
            *dev,
        ]
    )
    assert 0 <= accuracy <= 1


@pytest.mark.parametrize(
    "script",
    [
        "ptb/train_ptb.py",
        "vae/train_vae.py",
        "dcgan/train_dcgan.py",
        "word2vec/train_word2vec.py",
        "seq2seq/seq2seq.py",
        "recursive/train_recursive.py",
        "stochastic_depth/train_stochastic_depth.py",
        "cifar/train_cifar.py",
    ],
)
def test_help(load_example, script, capsys):
    example = load_example(script)
    with pytest.raises(SystemExit) as e:
        example.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for option in ("--device", "--epoch", "--out", "--resume"):
        assert option in out
