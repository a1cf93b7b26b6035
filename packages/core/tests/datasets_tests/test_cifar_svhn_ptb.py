import io
import tarfile

import numpy as np
import pytest

from kusari import datasets


def _tar_gz(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _records(n, n_labels, seed):
    rs = np.random.RandomState(seed)
    labels = rs.randint(0, 10, (n, n_labels)).astype(np.uint8)
    pixels = rs.randint(0, 256, (n, 3072)).astype(np.uint8)
    return np.concatenate([labels, pixels], axis=1).tobytes(), labels, pixels


@pytest.fixture
def fake_cifar(server, monkeypatch):
    members = {}
    train_pixels = []
    for i in range(1, 6):
        data, _, pixels = _records(2, 1, i)
        members[f"cifar-10-batches-bin/data_batch_{i}.bin"] = data
        train_pixels.append(pixels)
    data, test_labels, _ = _records(3, 1, 9)
    members["cifar-10-batches-bin/test_batch.bin"] = data
    server.files["c/cifar-10-binary.tar.gz"] = _tar_gz(members)
    data100, labels100, _ = _records(4, 2, 5)
    server.files["c/cifar-100-binary.tar.gz"] = _tar_gz(
        {"cifar-100-binary/train.bin": data100, "cifar-100-binary/test.bin": data100}
    )
    monkeypatch.setenv("KUSARI_CIFAR_BASE_URL", server.url("c/"))
    return np.concatenate(train_pixels), test_labels, labels100


def test_get_cifar10(dataset_root, fake_cifar):
    train_pixels, test_labels, _ = fake_cifar
    train, test = datasets.get_cifar10()
    assert len(train) == 10 and len(test) == 3
    x, t = train[7]
    assert x.shape == (3, 32, 32) and x.dtype == np.float32 and t.dtype == np.int32
    np.testing.assert_allclose(x.ravel(), train_pixels[7] / 255.0, rtol=1e-6)
    assert test[2][1] == test_labels[2, 0]
    flat, _ = datasets.get_cifar10(withlabel=False, ndim=1, scale=2.0, dtype=np.float64)
    assert flat.shape == (10, 3072) and flat.dtype == np.float64 and flat.max() <= 2.0
    with pytest.raises(ValueError, match="ndim must be 1 or 3"):
        datasets.get_cifar10(ndim=2)


def test_get_cifar100_uses_fine_labels(dataset_root, fake_cifar):
    _, _, labels100 = fake_cifar
    train, _ = datasets.get_cifar100()
    assert [int(train[i][1]) for i in range(4)] == labels100[:, 1].tolist()


def test_get_ptb_words(dataset_root, server, monkeypatch):
    server.files["p/ptb.train.txt"] = b" the cat sat\n the dog\n"
    server.files["p/ptb.valid.txt"] = b" the dog sat\n"
    server.files["p/ptb.test.txt"] = b" cat\n"
    monkeypatch.setenv("KUSARI_PTB_BASE_URL", server.url("p"))
    vocab = datasets.get_ptb_words_vocabulary()
    assert vocab == {"the": 0, "cat": 1, "sat": 2, "<eos>": 3, "dog": 4}
    train, valid, test = datasets.get_ptb_words()
    assert train.dtype == np.int32
    assert train.tolist() == [0, 1, 2, 3, 0, 4, 3]
    assert valid.tolist() == [0, 4, 2, 3] and test.tolist() == [1, 3]
    assert datasets.get_ptb_words_vocabulary() == vocab  # from vocab.txt


def test_get_ptb_words_unknown_word(dataset_root, server, monkeypatch):
    server.files["q/ptb.train.txt"] = b"a\n"
    server.files["q/ptb.valid.txt"] = b"b\n"
    server.files["q/ptb.test.txt"] = b"a\n"
    monkeypatch.setenv("KUSARI_PTB_BASE_URL", server.url("q/"))
    with pytest.raises(ValueError, match="ptb.valid.txt.*'b'"):
        datasets.get_ptb_words()


def test_get_svhn(dataset_root, server, monkeypatch, tmp_path):
    sio = pytest.importorskip("scipy.io")
    rs = np.random.RandomState(0)
    for split, n in [("train", 4), ("test", 2), ("extra", 1)]:
        x = rs.randint(0, 256, (32, 32, 3, n)).astype(np.uint8)
        y = np.arange(1, n + 1).reshape(n, 1).astype(np.uint8)
        y[0] = 10  # SVHN labels the digit 0 as 10
        path = tmp_path / f"{split}.mat"
        sio.savemat(path, {"X": x, "y": y})
        server.files[f"s/{split}_32x32.mat"] = path.read_bytes()
    monkeypatch.setenv("KUSARI_SVHN_BASE_URL", server.url("s/"))
    train, test = datasets.get_svhn()
    x, t = train[1]
    assert x.shape == (3, 32, 32) and x.dtype == np.float32 and t == 2
    assert train[0][1] == 0 and t.dtype == np.int32
    assert len(datasets.get_svhn(add_extra=True)) == 3
