import hashlib
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _local_http import LocalServer

from kusari.dataset import download


@pytest.fixture
def root(tmp_path, monkeypatch):
    old = download.get_dataset_root()
    download.set_dataset_root(tmp_path / "root")
    monkeypatch.setattr(download, "RETRY_BACKOFF", 0.01)
    yield tmp_path / "root"
    download.set_dataset_root(old)


@pytest.fixture
def server():
    s = LocalServer()
    yield s
    s.close()


def _body(n=50_000):
    return bytes(range(256)) * (n // 256)


def _cache_files(root):
    cache = root / "_dl_cache"
    return sorted(p for p in os.listdir(cache) if not p.endswith(".lock"))


def test_root_default_and_env(tmp_path):
    code = "from kusari.dataset import download; print(download.get_dataset_root())"
    env = dict(os.environ, KUSARI_DATASET_ROOT=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == str(tmp_path)
    env.pop("KUSARI_DATASET_ROOT")
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == os.path.join(
        os.path.expanduser("~"), ".kusari", "dataset"
    )


def test_get_dataset_directory(root):
    path = download.get_dataset_directory("a/b")
    assert path == str(root / "a" / "b") and os.path.isdir(path)
    assert not os.path.exists(
        download.get_dataset_directory("c", create_directory=False)
    )


def test_cached_download_and_cache_hit(root, server):
    body = _body()
    server.files["f.bin"] = body
    digest = hashlib.sha256(body).hexdigest()
    path = download.cached_download(server.url("f.bin"), sha256=digest)
    assert Path(path).read_bytes() == body
    assert download.cached_download(server.url("f.bin")) == path
    assert server.count("f.bin") == 1
    assert _cache_files(root) == [os.path.basename(path)]


def test_checksum_mismatch(root, server):
    server.files["f.bin"] = _body()
    url = server.url("f.bin")
    with pytest.raises(download.ChecksumError, match=r"f\.bin.*expected sha256 0+"):
        download.cached_download(url, sha256="0" * 64)
    assert _cache_files(root) == []  # neither the file nor a .part is left


def test_custom_verifier(root, server):
    server.files["f.bin"] = _body()
    with pytest.raises(download.ChecksumError, match="failed verification"):
        download.cached_download(server.url("f.bin"), verify=lambda p: False)
    assert download.cached_download(server.url("f.bin"), verify=lambda p: True)


def test_404_fails_fast_and_names_url(root, server):
    url = server.url("missing.bin")
    with pytest.raises(download.DownloadError, match=r"missing\.bin.*404"):
        download.cached_download(url, attempts=3)
    assert server.count("missing.bin") == 1


@pytest.mark.parametrize("ignore_range", [False, True])
def test_dropped_connection_is_resumed(root, server, ignore_range):
    body = _body(200_000)
    server.files["big.bin"] = body
    server.drop_first["big.bin"] = 1
    server.ignore_range = ignore_range
    path = download.cached_download(
        server.url("big.bin"), sha256=hashlib.sha256(body).hexdigest()
    )
    assert Path(path).read_bytes() == body
    ranges = [r for p, r in server.requests if p == "big.bin"]
    assert len(ranges) == 2 and ranges[0] is None
    assert ranges[1] == f"bytes={len(body) // 2}-"


def test_gives_up_after_attempts(root, server):
    server.files["big.bin"] = _body()
    server.drop_first["big.bin"] = 10
    with pytest.raises(download.DownloadError, match=r"big\.bin after 3 attempts"):
        download.cached_download(server.url("big.bin"), attempts=3)
    # Only the resumable .part may remain; no complete-looking file.
    assert all(f.endswith(".part") for f in _cache_files(root))


def test_unreachable_server_names_url(root):
    with socket.socket() as s:  # find a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/x.bin"
    with pytest.raises(
        download.DownloadError, match=r"127\.0\.0\.1:\d+/x\.bin.*offline"
    ):
        download.cached_download(url, attempts=2)


def test_stalled_server_times_out(root, server):
    server.files["slow.bin"] = b"abc"
    server.stall["slow.bin"] = 3.0
    start = time.monotonic()
    with pytest.raises(download.DownloadError, match=r"slow\.bin"):
        download.cached_download(server.url("slow.bin"), timeout=0.3, attempts=1)
    assert time.monotonic() - start < 2.0


def test_bad_attempts(root):
    with pytest.raises(ValueError, match="attempts"):
        download.cached_download("http://127.0.0.1/x", attempts=0)


def _download_in_child(root, url, queue):
    download.set_dataset_root(root)
    queue.put(download.cached_download(url))


def test_two_processes_download_once(root, server):
    body = _body(40_000)
    server.files["shared.bin"] = body
    server.slow["shared.bin"] = 0.005  # ~0.2 s, so the two overlap
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [
        ctx.Process(
            target=_download_in_child, args=(str(root), server.url("shared.bin"), queue)
        )
        for _ in range(2)
    ]
    for p in procs:
        p.start()
    paths = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=30)
        assert p.exitcode == 0
    assert paths[0] == paths[1]
    assert Path(paths[0]).read_bytes() == body
    assert server.count("shared.bin") == 1


def test_cache_or_load_file(tmp_path):
    path = str(tmp_path / "sub" / "c.txt")
    calls = []

    def create(p):
        calls.append(p)
        assert p != path  # written elsewhere, then renamed
        with open(p, "w") as f:
            f.write("1")
        return "created"

    assert download.cache_or_load_file(path, create, lambda p: "loaded") == "created"
    assert download.cache_or_load_file(path, create, lambda p: "loaded") == "loaded"
    assert len(calls) == 1
    assert sorted(os.listdir(tmp_path / "sub")) == ["c.txt", "c.txt.lock"]


def test_cache_or_load_file_failure_leaves_nothing(tmp_path):
    path = str(tmp_path / "c.npz")

    def create(p):
        with open(p, "w") as f:
            f.write("half")
        raise RuntimeError("creator failed")

    with pytest.raises(RuntimeError, match="creator failed"):
        download.cache_or_load_file(path, create, lambda p: None)
    assert os.listdir(tmp_path) == ["c.npz.lock"]


def test_env_base_url(monkeypatch):
    monkeypatch.setenv("KUSARI_TEST_BASE", "http://127.0.0.1:1/")
    assert download.env_base_url("KUSARI_TEST_BASE", "x") == "http://127.0.0.1:1/"
    monkeypatch.delenv("KUSARI_TEST_BASE")
    assert download.env_base_url("KUSARI_TEST_BASE", "x") == "x"
