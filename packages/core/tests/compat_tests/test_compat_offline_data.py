"""The generated dataset root is read by kusari's own getters, offline.

If a getter's cache layout changes, the example runs would start to
download (and fail in CI) without saying why; this test says it first.
"""

from __future__ import annotations

import chainer_offline_data as data
import numpy as np
import pytest

import kusari.datasets
from kusari.dataset import download


@pytest.fixture
def offline_download(offline_root, monkeypatch):
    old = download.get_dataset_root()
    download.set_dataset_root(offline_root)

    def refuse(*args, **kwargs):
        raise AssertionError("a download was attempted")

    monkeypatch.setattr(download, "_download", refuse)
    yield offline_root
    download.set_dataset_root(old)


def test_mnist_and_cifar(offline_download):
    train, test = kusari.datasets.get_mnist()
    assert (len(train), len(test)) == data.MNIST_SIZES
    x, t = train[0]
    assert x.shape == (784,) and x.dtype == np.float32 and 0 <= t < 10
    images = kusari.datasets.get_mnist(withlabel=False, ndim=3)[0]
    assert images.shape == (data.MNIST_SIZES[0], 1, 28, 28)
    train, test = kusari.datasets.get_cifar10(withlabel=False, scale=255.0)
    assert train.shape == (data.CIFAR_SIZES[0], 3, 32, 32) and train.max() > 1


def test_ptb(offline_download):
    train, valid, test = kusari.datasets.get_ptb_words()
    assert (len(train), len(valid), len(test)) == data.PTB_WORDS
    assert max(train) + 1 == data.PTB_VOCAB
    vocab = kusari.datasets.get_ptb_words_vocabulary()
    assert len(vocab) == data.PTB_VOCAB and vocab["<eos>"] == 0


def test_url_cache_and_files(offline_download):
    path = download.cached_download(data.TREC_BASE_URL + "TREC.train.all")
    with open(path) as f:
        label, *words = f.readline().split()
    assert 0 <= int(label) < 6 and words
    listing = (offline_download / "images" / "train.txt").read_text().split()
    dataset = kusari.datasets.LabeledImageDataset(
        list(zip(listing[::2], map(int, listing[1::2]))),
        root=str(offline_download / "images"),
    )
    image, label = dataset[0]
    assert image.shape == (3, data.IMAGE_SIDE, data.IMAGE_SIDE)
    tree = (offline_download / "trees" / "dev.txt").read_text().splitlines()[0]
    assert tree.startswith("(") and tree.count("(") == tree.count(")")
