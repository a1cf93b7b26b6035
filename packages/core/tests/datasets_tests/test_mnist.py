import gzip
import hashlib
import os
import shutil
import struct

import numpy as np
import pytest

from kusari import datasets
from kusari.dataset import download
from kusari.datasets import mnist

# The real MNIST files for the `real_mnist` tests (`nox -s real_mnist`): the
# folder KUSARI_MNIST_DIR names, else a `shared/data/mnist` beside the checkout.
REAL_MNIST = os.environ.get("KUSARI_MNIST_DIR") or os.path.normpath(
    os.path.join(
        os.path.dirname(__file__),
        *[os.pardir] * 4,
        os.pardir,
        "shared",
        "data",
        "mnist",
    )
)
NAMES = [
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
]


def _idx_images(n, seed):
    pixels = np.random.RandomState(seed).randint(0, 256, (n, 28, 28)).astype(np.uint8)
    return struct.pack(">iiii", 2051, n, 28, 28) + pixels.tobytes(), pixels


def _idx_labels(n, seed):
    labels = np.random.RandomState(seed).randint(0, 10, n).astype(np.uint8)
    return struct.pack(">ii", 2049, n) + labels.tobytes(), labels


@pytest.fixture
def fake_mnist(server, monkeypatch):
    """Serve a small MNIST-format dataset and make the loaders use it."""
    payloads = {}
    arrays = {}
    for name, n, seed in [
        (NAMES[0], 12, 0),
        (NAMES[1], 12, 1),
        (NAMES[2], 5, 2),
        (NAMES[3], 5, 3),
    ]:
        maker = _idx_images if "images" in name else _idx_labels
        payload, arrays[name] = maker(n, seed)
        payloads[name] = payload
        server.files["mnist/" + name] = gzip.compress(payload)
    monkeypatch.setenv("KUSARI_MNIST_BASE_URL", server.url("mnist/"))
    monkeypatch.setattr(
        mnist,
        "MNIST_PAYLOAD_SHA256",
        {k: hashlib.sha256(v).hexdigest() for k, v in payloads.items()},
    )
    return arrays


def test_get_mnist_defaults(dataset_root, server, fake_mnist):
    train, test = datasets.get_mnist()
    assert (
        isinstance(train, datasets.TupleDataset) and len(train) == 12 and len(test) == 5
    )
    x, t = train[3]
    assert x.shape == (784,) and x.dtype == np.float32 and t.dtype == np.int32
    assert 0.0 <= x.min() and x.max() <= 1.0
    np.testing.assert_allclose(x, fake_mnist[NAMES[0]][3].ravel() / 255.0, rtol=1e-6)
    assert t == fake_mnist[NAMES[1]][3]
    # The processed cache is pickle-free and is reused without the network.
    npz = dataset_root / "pfnet" / "chainer" / "mnist" / "train.npz"
    with np.load(npz, allow_pickle=False) as f:
        assert f["x"].shape == (12, 784) and f["x"].dtype == np.uint8
    before = len(server.requests)
    server.close()
    datasets.get_mnist()
    assert len(server.requests) == before


@pytest.mark.parametrize(
    "kwargs,shape",
    [
        ({"ndim": 2}, (28, 28)),
        ({"ndim": 3}, (1, 28, 28)),
        ({"ndim": 3, "rgb_format": True}, (3, 28, 28)),
    ],
)
def test_get_mnist_shapes(dataset_root, fake_mnist, kwargs, shape):
    train, _ = datasets.get_mnist(**kwargs)
    assert train[0][0].shape == shape


def test_get_mnist_options(dataset_root, fake_mnist):
    train, test = datasets.get_mnist(
        withlabel=False, scale=255.0, dtype=np.float64, label_dtype=np.int64
    )
    assert isinstance(train, np.ndarray) and train.dtype == np.float64
    np.testing.assert_allclose(train[0], fake_mnist[NAMES[0]][0].ravel())
    train, _ = datasets.get_mnist(label_dtype=np.int64)
    assert train[0][1].dtype == np.int64
    with pytest.raises(ValueError, match="get_mnist: ndim must be 1, 2 or 3"):
        datasets.get_mnist(ndim=4)
    # rgb_format only applies to ndim=3; with other ndim Chainer ignores it.
    train, _ = datasets.get_mnist(ndim=1, rgb_format=True)
    assert train[0][0].shape == (784,)


def test_get_mnist_rejects_wrong_checksum(
    dataset_root, server, fake_mnist, monkeypatch
):
    monkeypatch.setattr(mnist, "MNIST_PAYLOAD_SHA256", dict.fromkeys(NAMES, "0" * 64))
    with pytest.raises(download.DownloadError, match="failed verification"):
        datasets.get_mnist()
    assert not (dataset_root / "pfnet" / "chainer" / "mnist" / "train.npz").exists()


def test_get_mnist_offline_error_names_url(dataset_root, monkeypatch):
    monkeypatch.setenv("KUSARI_MNIST_BASE_URL", "http://127.0.0.1:9/nowhere/")
    monkeypatch.setattr(download, "DOWNLOAD_ATTEMPTS", 1)
    with pytest.raises(
        download.DownloadError, match=r"127\.0\.0\.1:9/nowhere/train-images"
    ):
        datasets.get_mnist()


def test_fashion_and_kuzushiji_use_their_own_mirrors(dataset_root, server, monkeypatch):
    for name, n, seed in [
        (NAMES[0], 3, 0),
        (NAMES[1], 3, 1),
        (NAMES[2], 2, 2),
        (NAMES[3], 2, 3),
    ]:
        maker = _idx_images if "images" in name else _idx_labels
        server.files["f/" + name] = gzip.compress(maker(n, seed)[0])
    monkeypatch.setenv("KUSARI_FASHION_MNIST_BASE_URL", server.url("f"))
    monkeypatch.setenv("KUSARI_KUZUSHIJI_MNIST_BASE_URL", server.url("f/"))
    train, test = datasets.get_fashion_mnist(ndim=2)
    assert len(train) == 3 and train[0][0].shape == (28, 28)
    train, test = datasets.get_kuzushiji_mnist(ndim=3)
    assert len(test) == 2 and test[0][0].shape == (1, 28, 28)
    assert len(datasets.get_fashion_mnist_labels()) == 10
    assert datasets.get_kuzushiji_mnist_labels()[-1] == "wo"


def test_truncated_idx_is_reported(dataset_root, server, monkeypatch):
    payload, _ = _idx_images(4, 0)
    server.files["t/" + NAMES[0]] = gzip.compress(payload[:-10])
    server.files["t/" + NAMES[1]] = gzip.compress(_idx_labels(4, 1)[0])
    monkeypatch.setenv("KUSARI_FASHION_MNIST_BASE_URL", server.url("t/"))
    with pytest.raises(ValueError, match="truncated"):
        datasets.get_fashion_mnist()


@pytest.fixture
def real_mnist():
    """The folder of the four real MNIST files; a test that needs them fails
    (it is not skipped) where they are missing: they run only on request."""
    missing = [n for n in NAMES if not os.path.exists(os.path.join(REAL_MNIST, n))]
    if missing:
        pytest.fail(
            f"the real_mnist tests need the MNIST files in {REAL_MNIST} "
            f"(missing: {', '.join(missing)}); set KUSARI_MNIST_DIR to their folder"
        )
    return REAL_MNIST


@pytest.mark.real_mnist
def test_real_mnist_from_cache_dir_without_network(
    dataset_root, real_mnist, monkeypatch
):
    # Nothing is reachable: the raw files must come from the cache directory.
    monkeypatch.setenv("KUSARI_MNIST_BASE_URL", "http://127.0.0.1:9/")
    dest = mnist.install_mnist(real_mnist)
    assert sorted(os.listdir(dest)) == sorted(NAMES)
    train, test = datasets.get_mnist()
    assert len(train) == 60000 and len(test) == 10000
    x, t = train[0]
    assert x.dtype == np.float32 and x.shape == (784,) and int(t) == 5
    assert float(train._datasets[0].max()) == 1.0


@pytest.mark.real_mnist
def test_install_mnist_rejects_other_files(dataset_root, real_mnist, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for n in NAMES:
        shutil.copy(os.path.join(real_mnist, n), src / n)
    (src / NAMES[3]).write_bytes(gzip.compress(b"\0" * 20))
    with pytest.raises(ValueError, match="not the original MNIST"):
        mnist.install_mnist(src)
    os.remove(src / NAMES[3])
    with pytest.raises(FileNotFoundError, match="t10k-labels"):
        mnist.install_mnist(src)


@pytest.mark.real_mnist
def test_real_mnist_downloaded_with_payload_checksums(
    dataset_root, real_mnist, server, monkeypatch
):
    # The shared files are re-compressed; payload checksums still accept them.
    for n in NAMES:
        with open(os.path.join(real_mnist, n), "rb") as f:
            server.files["m/" + n] = f.read()
    monkeypatch.setenv("KUSARI_MNIST_BASE_URL", server.url("m/"))
    train, test = datasets.get_mnist(withlabel=False)
    assert train.shape == (60000, 784) and test.shape == (10000, 784)
