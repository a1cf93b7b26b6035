"""A tiny, generated dataset root for running Chainer-style scripts offline.

kusari's dataset getters look in ``$KUSARI_DATASET_ROOT`` before they touch
the network: ``get_mnist`` reads ``pfnet/chainer/mnist/{train,test}.npz``,
``get_cifar10`` reads ``pfnet/chainer/cifar/cifar-10.npz`` and
``get_ptb_words`` reads ``pfnet/chainer/ptb/{ptb.npz,vocab.txt}``. This module
writes small stand-ins in exactly those layouts (random pixels, a random word
stream), so a script that calls ``chainer.datasets.get_mnist()`` runs without
a download. It also writes what some scripts read by themselves: an
image-list pair for ``LabeledImageDataset``, files in the download cache
(:func:`write_url_cache`) and sentiment trees under ``trees/``.

Run it to build a root for your own runs::

    python packages/core/tests/compat_tests/chainer_offline_data.py /tmp/kusari-data
    KUSARI_DATASET_ROOT=/tmp/kusari-data python -m kusari.compat train_mnist.py ...
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numpy as np

#: Sizes of the stand-ins: big enough for a few batches, small enough to
#: build in well under a second.
MNIST_SIZES = (600, 200)
CIFAR_SIZES = (200, 100)
PTB_WORDS = (3000, 400, 400)
PTB_VOCAB = 120
IMAGE_SIDE = 256
IMAGES_PER_SPLIT = 4
#: Where Chainer's text-classification example fetches the TREC question set
#: (``chainer.dataset.cached_download`` keys its cache by this URL).
TREC_BASE_URL = (
    "https://raw.githubusercontent.com/harvardnlp/sent-conv-torch/master/data/"
)


def _savez(path: Path, **arrays: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        np.savez_compressed(f, allow_pickle=False, **arrays)


def write_mnist(root: Path, rng: np.random.Generator) -> None:
    """MNIST-shaped uint8 images (N, 784) and labels 0..9."""
    for name, n in zip(("train", "test"), MNIST_SIZES):
        x = rng.integers(0, 256, (n, 784), dtype=np.uint8)
        y = rng.integers(0, 10, n, dtype=np.uint8)
        _savez(root / "pfnet" / "chainer" / "mnist" / f"{name}.npz", x=x, y=y)


def write_cifar10(root: Path, rng: np.random.Generator) -> None:
    """CIFAR-10-shaped uint8 records (N, 3072) and labels 0..9."""
    n_train, n_test = CIFAR_SIZES
    _savez(
        root / "pfnet" / "chainer" / "cifar" / "cifar-10.npz",
        train_x=rng.integers(0, 256, (n_train, 3072), dtype=np.uint8),
        train_y=rng.integers(0, 10, n_train, dtype=np.uint8),
        test_x=rng.integers(0, 256, (n_test, 3072), dtype=np.uint8),
        test_y=rng.integers(0, 10, n_test, dtype=np.uint8),
    )


def write_ptb(root: Path, rng: np.random.Generator) -> None:
    """A PTB-like word stream: ids below :data:`PTB_VOCAB`, id 0 is ``<eos>``.

    Every id appears in the training split (the way PTB's vocabulary is built
    from it), so ``max(train) + 1`` is the vocabulary size the scripts expect.
    """
    folder = root / "pfnet" / "chainer" / "ptb"
    splits = {}
    for name, n in zip(("train", "valid", "test"), PTB_WORDS):
        ids = rng.integers(0, PTB_VOCAB, n).astype(np.int32)
        if name == "train":
            ids[:PTB_VOCAB] = np.arange(PTB_VOCAB, dtype=np.int32)
        splits[name] = ids
    _savez(folder / "ptb.npz", **splits)
    words = ["<eos>"] + [f"w{i}" for i in range(1, PTB_VOCAB)]
    (folder / "vocab.txt").write_text("".join(w + "\n" for w in words))


def write_image_lists(root: Path, rng: np.random.Generator) -> None:
    """``images/*.png`` (RGB, :data:`IMAGE_SIDE` square), ``train.txt`` and
    ``val.txt`` in Caffe's "path label" list format, and ``mean.npy``."""
    from PIL import Image

    folder = root / "images"
    folder.mkdir(parents=True, exist_ok=True)
    for split in ("train", "val"):
        lines = []
        for i in range(IMAGES_PER_SPLIT):
            pixels = rng.integers(0, 256, (IMAGE_SIDE, IMAGE_SIDE, 3), dtype=np.uint8)
            name = f"{split}{i}.png"
            Image.fromarray(pixels).save(folder / name)
            lines.append(f"{name} {i % 2}\n")
        (folder / f"{split}.txt").write_text("".join(lines))
    mean = np.full((3, IMAGE_SIDE, IMAGE_SIDE), 127.5, np.float32)
    np.save(folder / "mean.npy", mean)


def write_url_cache(root: Path, url: str, content: bytes) -> Path:
    """Put ``content`` where ``cached_download(url)`` looks first.

    The cache names a file by the MD5 of its URL under ``_dl_cache``, the
    layout Chainer used, so a pre-filled cache serves scripts that call
    ``chainer.dataset.cached_download`` themselves.
    """
    folder = root / "_dl_cache"
    folder.mkdir(parents=True, exist_ok=True)
    name = hashlib.md5(url.encode("utf-8"), usedforsecurity=False).hexdigest()
    (folder / name).write_bytes(content)
    return folder / name


def write_trec(root: Path, rng: np.random.Generator) -> None:
    """``TREC.{train,test}.all``: "label word word ..." lines, six classes."""
    words = [f"tok{i}" for i in range(40)]
    for suffix, n in ((".train.all", 120), (".test.all", 40)):
        lines = []
        for _ in range(n):
            length = int(rng.integers(3, 12))
            text = " ".join(rng.choice(words, length))
            lines.append(f"{int(rng.integers(0, 6))} {text}\n")
        url = TREC_BASE_URL + "TREC" + suffix
        write_url_cache(root, url, "".join(lines).encode())


def _tree(rng: np.random.Generator, depth: int) -> str:
    label = int(rng.integers(0, 5))
    if depth == 0 or rng.random() < 0.3:
        return f"({label} w{int(rng.integers(0, 30))})"
    left, right = _tree(rng, depth - 1), _tree(rng, depth - 1)
    return f"({label} {left} {right})"


def write_sentiment_trees(root: Path, rng: np.random.Generator) -> None:
    """``trees/{train,dev,test}.txt``: binary trees in the Stanford Sentiment
    Treebank's s-expression form, a label 0..4 on every node."""
    folder = root / "trees"
    folder.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", 30), ("dev", 10), ("test", 10)):
        lines = [_tree(rng, 4) + "\n" for _ in range(n)]
        (folder / f"{split}.txt").write_text("".join(lines))


def build(root: str | os.PathLike[str], seed: int = 0) -> Path:
    """Write every stand-in under ``root`` and return it as a Path."""
    path = Path(root)
    rng = np.random.default_rng(seed)
    write_mnist(path, rng)
    write_cifar10(path, rng)
    write_ptb(path, rng)
    write_image_lists(path, rng)
    write_trec(path, rng)
    write_sentiment_trees(path, rng)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python chainer_offline_data.py DATASET_ROOT")
    print(build(sys.argv[1]))
