"""Chainer 7 layouts of the dataset modules and their npz caches.

A cache written by Chainer (``~/.chainer/dataset``, reachable through
``CHAINER_DATASET_ROOT`` under the compat alias) must load in kusari, and
reloading a cache must go through the dataset module's ``numpy.load``, which
is what Chainer-style tests patch to check that nothing is rebuilt.
"""

import os
import types

import numpy as np
import pytest

from kusari import datasets
from kusari.dataset import download
from kusari.datasets import cifar, fashion_mnist, kuzushiji_mnist, mnist, svhn


def _write(root, sub, name, **arrays):
    d = root.joinpath(*sub.split("/"))
    d.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(d / name, **arrays)


def _counting_numpy(monkeypatch, module):
    """Replace ``module.numpy`` by a stand-in counting ``load`` calls."""
    calls = []

    def load(*args, **kwargs):
        calls.append(args)
        return np.load(*args, **kwargs)

    fake = types.SimpleNamespace(**{k: getattr(np, k) for k in ("int32", "uint8")})
    fake.load = load
    monkeypatch.setattr(module, "numpy", fake)
    return calls


def _mnist_cache(root, sub, n=5, seed=0):
    rs = np.random.RandomState(seed)
    for name in ("train.npz", "test.npz"):
        _write(
            root,
            sub,
            name,
            x=rs.randint(0, 256, (n, 784)).astype(np.uint8),
            y=rs.randint(0, 10, n).astype(np.uint8),
        )


def test_fashion_and_kuzushiji_have_their_own_modules():
    assert datasets.get_fashion_mnist is fashion_mnist.get_fashion_mnist
    assert datasets.get_kuzushiji_mnist is kuzushiji_mnist.get_kuzushiji_mnist
    assert mnist.get_fashion_mnist is fashion_mnist.get_fashion_mnist
    assert kuzushiji_mnist.get_kuzushiji_mnist_labels()[0] == "o"


@pytest.mark.parametrize(
    "module,getter,sub",
    [
        (mnist, "get_mnist", "pfnet/chainer/mnist"),
        (fashion_mnist, "get_fashion_mnist", "pfnet/chainer/fashion-mnist"),
        (kuzushiji_mnist, "get_kuzushiji_mnist", "pfnet/chainer/kuzushiji_mnist"),
    ],
)
def test_mnist_like_cache_is_read_through_the_modules_numpy(
    dataset_root, monkeypatch, module, getter, sub
):
    _mnist_cache(dataset_root, sub)
    calls = _counting_numpy(monkeypatch, module)
    train, test = getattr(module, getter)(ndim=3)
    assert len(calls) == 2  # train.npz and test.npz, nothing rebuilt
    assert train[0][0].shape == (1, 28, 28) and len(test) == 5


def test_rgb_format_is_ignored_unless_ndim_is_3(dataset_root):
    _mnist_cache(dataset_root, "pfnet/chainer/mnist")
    for ndim, shape in ((1, (784,)), (2, (28, 28)), (3, (3, 28, 28))):
        train, _ = datasets.get_mnist(ndim=ndim, rgb_format=True)
        assert train[0][0].shape == shape


def test_svhn_reads_chainers_cache_layout(dataset_root, monkeypatch):
    rs = np.random.RandomState(1)
    x = rs.randint(0, 256, (32, 32, 3, 4)).astype(np.uint8)
    y = np.array([[10], [1], [9], [10]], dtype=np.uint8)  # 10 is the digit 0
    for name in ("train.npz", "test.npz"):
        _write(dataset_root, "pfnet/chainer/svhn", name, x=x, y=y)
    calls = _counting_numpy(monkeypatch, svhn)
    train, test = datasets.get_svhn(scale=255.0)
    assert len(calls) == 2
    image, label = train[2]
    assert image.shape == (3, 32, 32) and train._datasets[0].flags.c_contiguous
    np.testing.assert_array_equal(image, x[..., 2].transpose(2, 0, 1))
    assert [int(test[i][1]) for i in range(4)] == [0, 1, 9, 0]


def test_svhn_still_reads_an_older_kusari_cache(dataset_root):
    x = np.arange(2 * 3 * 32 * 32, dtype=np.int64).reshape(2, 3, 32, 32) % 256
    for name in ("train.npz", "test.npz"):
        _write(
            dataset_root,
            "pfnet/chainer/svhn",
            name,
            x=x.astype(np.uint8),
            y=np.array([0, 7]),
        )
    train, _ = datasets.get_svhn(scale=255.0)
    np.testing.assert_array_equal(train[1][0], x[1])
    assert int(train[0][1]) == 0 and int(train[1][1]) == 7


def test_svhn_builds_its_cache_in_chainers_layout(
    dataset_root, server, monkeypatch, tmp_path
):
    sio = pytest.importorskip("scipy.io")
    x = np.random.RandomState(2).randint(0, 256, (32, 32, 3, 3)).astype(np.uint8)
    y = np.array([[10], [2], [3]], dtype=np.uint8)
    path = tmp_path / "t.mat"
    sio.savemat(path, {"X": x, "y": y})
    data = path.read_bytes()
    for split in ("train", "test"):
        server.files[f"s/{split}_32x32.mat"] = data
    monkeypatch.setenv("KUSARI_SVHN_BASE_URL", server.url("s/"))
    train, _ = datasets.get_svhn()
    assert int(train[0][1]) == 0
    cache = download.get_dataset_directory("pfnet/chainer/svhn")
    with np.load(os.path.join(cache, "train.npz"), allow_pickle=False) as f:
        np.testing.assert_array_equal(f["x"], x)
        np.testing.assert_array_equal(f["y"], y)


def test_cifar_cache_is_read_through_the_modules_numpy(dataset_root, monkeypatch):
    rs = np.random.RandomState(3)
    _write(
        dataset_root,
        "pfnet/chainer/cifar",
        "cifar-10.npz",
        train_x=rs.randint(0, 256, (4, 3072)).astype(np.uint8),
        train_y=np.arange(4).astype(np.uint8),
        test_x=rs.randint(0, 256, (2, 3072)).astype(np.uint8),
        test_y=np.arange(2).astype(np.uint8),
    )
    calls = _counting_numpy(monkeypatch, cifar)
    train, test = datasets.get_cifar10()
    assert len(calls) == 1 and len(train) == 4 and int(test[1][1]) == 1


def test_image_dataset_reports_pillow():
    pil = pytest.importorskip("PIL")
    assert pil is not None
    assert datasets.image_dataset.available is True
