"""The download cache under broken and hostile conditions: tampered cache
entries, broken built files, and servers that drip bytes."""

import gc
import gzip
import hashlib
import os
import time
from pathlib import Path

import numpy as np
import pytest
from _local_http import LocalServer

from kusari.dataset import download
from kusari.datasets import _mnist_common, mnist


@pytest.fixture
def root(tmp_path, monkeypatch):
    old = download.get_dataset_root()
    download.set_dataset_root(tmp_path / "root")
    monkeypatch.setattr(download, "RETRY_BACKOFF", 0.01)
    monkeypatch.delenv(download.DEADLINE_ENV, raising=False)
    yield tmp_path / "root"
    download.set_dataset_root(old)


@pytest.fixture
def server():
    s = LocalServer()
    yield s
    s.close()


def _cache_path(root, url):
    name = hashlib.md5(url.encode(), usedforsecurity=False).hexdigest()
    return root / "_dl_cache" / name


def _plant(root, url, data):
    path = _cache_path(root, url)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_dripping_server_hits_the_deadline(root, server, monkeypatch):
    body = bytes(range(256)) * 40  # 10 KiB, sent 1 KiB every 0.1 s
    server.files["drip.bin"] = body
    server.slow["drip.bin"] = 0.1
    url = server.url("drip.bin")
    monkeypatch.setenv(download.DEADLINE_ENV, "0.35")
    start = time.monotonic()
    with pytest.raises(
        download.DownloadTimeoutError,
        match=rf"drip\.bin.*0\.35 s.*{download.DEADLINE_ENV}",
    ):
        download.cached_download(url, timeout=5.0)
    assert time.monotonic() - start < 0.9  # the whole body needs ~1 s
    part = str(_cache_path(root, url)) + ".part"
    kept = os.path.getsize(part)
    assert 0 < kept < len(body)
    # The bytes received are kept: the next try resumes instead of restarting.
    path = download.cached_download(url, timeout=5.0, deadline=10.0)
    assert Path(path).read_bytes() == body
    assert server.requests[-1] == ("drip.bin", f"bytes={kept}-")


def test_deadline_counts_the_backoff(root, monkeypatch):
    monkeypatch.setattr(download, "RETRY_BACKOFF", 5.0)
    start = time.monotonic()
    with pytest.raises(download.DownloadTimeoutError, match="0.5 s deadline"):
        download.cached_download("http://127.0.0.1:1/x.bin", attempts=3, deadline=0.5)
    assert time.monotonic() - start < 2.0


@pytest.mark.parametrize("value", ["abc", "0", "-3"])
def test_bad_deadline_setting(root, monkeypatch, value):
    monkeypatch.setenv(download.DEADLINE_ENV, value)
    with pytest.raises(ValueError, match=download.DEADLINE_ENV):
        download.cached_download("http://127.0.0.1:1/x.bin")


def test_tampered_cache_entry_is_downloaded_again(root, server):
    real = b"real payload" * 100
    server.files["data.bin"] = real
    url = server.url("data.bin")
    _plant(root, url, b"a fake stand-in")
    digest = hashlib.sha256(real).hexdigest()
    path = download.cached_download(url, sha256=digest)
    assert Path(path).read_bytes() == real
    assert server.count("data.bin") == 1
    # A good entry is used as is.
    assert download.cached_download(url, sha256=digest) == path
    assert server.count("data.bin") == 1


def test_tampered_cache_entry_without_network(root):
    url = "http://127.0.0.1:1/gone.bin"
    _plant(root, url, b"a fake stand-in")
    with pytest.raises(download.DownloadError, match=r"gone\.bin"):
        download.cached_download(url, sha256="0" * 64, attempts=1)


def test_unchecked_entries_are_not_reread(root):
    url = "http://127.0.0.1:1/any.bin"
    path = _plant(root, url, b"whatever")
    assert download.cached_download(url) == str(path)


def _idx_labels(labels):
    header = (0x801).to_bytes(4, "big") + len(labels).to_bytes(4, "big")
    return header + bytes(labels)


def test_fake_mnist_in_the_download_cache_is_replaced(root, server):
    real = _idx_labels(list(range(10)) * 6)
    server.files["labels.gz"] = gzip.compress(real)
    source = _mnist_common.RawSource(
        "test/mnist-like",
        "KUSARI_TEST_NO_SUCH_MIRROR",
        [server.url("")],
        {"labels.gz": hashlib.sha256(real).hexdigest()},
    )
    # A 10-example stand-in (and a file that is not even gzip) in the cache.
    for fake in (gzip.compress(_idx_labels(range(10))), b"not gzip"):
        _plant(root, server.url("labels.gz"), fake)
        path = source.fetch("labels.gz")
        assert gzip.decompress(Path(path).read_bytes()) == real
    assert server.count("labels.gz") == 2


def test_broken_built_file_names_its_path(tmp_path):
    path = tmp_path / "train.npz"
    np.savez(path, x=np.arange(1000))
    path.write_bytes(path.read_bytes()[:300])  # truncated

    def create(tmp):
        np.savez(tmp, x=np.arange(3))
        return "built"

    def load(p):
        with open(p, "rb") as f, np.load(f) as npz:
            return npz["x"]

    with pytest.raises(download.CacheFileError, match=r"train\.npz.*delete it"):
        download.cache_or_load_file(str(path), create, load)
    os.unlink(path)  # as the message says
    assert download.cache_or_load_file(str(path), create, load) == "built"
    np.testing.assert_array_equal(
        download.cache_or_load_file(str(path), create, load), [0, 1, 2]
    )


def test_broken_mnist_npz_names_its_path(root):
    directory = root / "pfnet" / "chainer" / "mnist"
    directory.mkdir(parents=True)
    (directory / "train.npz").write_bytes(b"PK\x03\x04 garbage")
    with pytest.raises(download.CacheFileError) as info:
        mnist.get_mnist()
    message = str(info.value)
    del info
    gc.collect()  # a leaked file handle would warn (an error in the tests) here
    assert str(directory / "train.npz") in message
    assert "delete it" in message
