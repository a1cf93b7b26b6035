import hashlib
import io
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import kusari
from kusari.dataset.download import ChecksumError, DownloadError
from kusari_cv.utils.download import (
    cached_download,
    download_model,
    extractall,
    file_lock,
)


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
    old = kusari.dataset.get_dataset_root()
    root = tmp_path / "root"
    kusari.dataset.set_dataset_root(root)
    # No waiting between retries of a download that cannot succeed.
    monkeypatch.setattr(kusari.dataset.download, "RETRY_BACKOFF", 0.0)
    yield root
    kusari.dataset.set_dataset_root(old)


def _served_file(tmp_path, name, data):
    path = tmp_path / "server" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path, path.as_uri()


def test_cached_download_caches_under_the_dataset_root(dataset_root, tmp_path):
    source, url = _served_file(tmp_path, "a.bin", b"payload")
    path = cached_download(url, md5=hashlib.md5(b"payload").hexdigest())
    assert path.startswith(str(dataset_root / "_dl_cache"))
    assert Path(path).read_bytes() == b"payload"
    source.unlink()  # a second call must not fetch again
    assert cached_download(url) == path


def test_cached_download_checks_sha256(dataset_root, tmp_path):
    _, url = _served_file(tmp_path, "b.bin", b"xyz")
    path = cached_download(url, sha256=hashlib.sha256(b"xyz").hexdigest())
    assert Path(path).read_bytes() == b"xyz"


def test_cached_download_rejects_a_wrong_md5(dataset_root, tmp_path):
    _, url = _served_file(tmp_path, "c.bin", b"data")
    with pytest.raises(ChecksumError, match="c.bin"):
        cached_download(url, md5="0" * 32)
    leftovers = os.listdir(dataset_root / "_dl_cache")
    assert [name for name in leftovers if not name.endswith(".lock")] == []


def test_cached_download_offline_error_names_the_url(dataset_root, tmp_path):
    url = (tmp_path / "missing.bin").as_uri()
    with pytest.raises(DownloadError, match="missing.bin"):
        cached_download(url)


def test_download_model_puts_the_file_in_the_model_directory(dataset_root, tmp_path):
    source, url = _served_file(tmp_path, "model.npz", b"weights")
    path = download_model(url)
    assert path == str(dataset_root / "pfnet" / "chainercv" / "models" / "model.npz")
    assert Path(path).read_bytes() == b"weights"
    source.unlink()
    assert download_model(url) == path


def test_file_lock_excludes_another_process(tmp_path):
    lock = str(tmp_path / "x.lock")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from kusari_cv.utils.download import file_lock\n"
            f"with file_lock({lock!r}):\n"
            "    print('held', flush=True)\n"
            "    sys.stdin.readline()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(TimeoutError, match="x.lock"):
            with file_lock(lock, timeout=0.2):
                pass
    finally:
        holder.communicate("\n", timeout=60)
    with file_lock(lock, timeout=5):  # released when the holder exits
        pass


def _tar(path, members, mode="w"):
    with tarfile.open(path, mode) as t:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize(
    ("ext", "mode"), [(".tar", "w"), (".tgz", "w:gz"), (".gz", "w:gz")]
)
def test_extractall_tar_merges_into_existing_folders(tmp_path, ext, mode):
    archive = tmp_path / ("a" + ext)
    _tar(archive, {"top/new.txt": b"new", "top/sub/deep.txt": b"deep"}, mode)
    dest = tmp_path / "out"
    (dest / "top").mkdir(parents=True)
    (dest / "top" / "old.txt").write_bytes(b"old")
    extractall(str(archive), str(dest), ext)
    assert (dest / "top" / "old.txt").read_bytes() == b"old"
    assert (dest / "top" / "new.txt").read_bytes() == b"new"
    assert (dest / "top" / "sub" / "deep.txt").read_bytes() == b"deep"
    assert sorted(os.listdir(dest)) == ["top"]  # no staging folder left


def test_extractall_zip(tmp_path):
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("d/x.txt", "hi")
    extractall(str(archive), str(tmp_path / "out"), ".zip")
    assert (tmp_path / "out" / "d" / "x.txt").read_text() == "hi"


@pytest.mark.parametrize("name", ["../evil.txt", "/abs/evil.txt", "a/../../evil.txt"])
def test_extractall_refuses_path_traversal(tmp_path, name):
    archive = tmp_path / "bad.tar"
    _tar(archive, {"ok.txt": b"fine", name: b"evil"})
    dest = tmp_path / "out"
    with pytest.raises(ValueError, match="outside"):
        extractall(str(archive), str(dest), ".tar")
    assert os.listdir(dest) == []  # nothing half-extracted
    assert not (tmp_path / "evil.txt").exists()


def test_extractall_refuses_zip_traversal(tmp_path):
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("../evil.txt", "x")
    with pytest.raises(ValueError, match="evil.txt"):
        extractall(str(archive), str(tmp_path / "out"), ".zip")


def test_extractall_refuses_links_leaving_the_destination(tmp_path):
    archive = tmp_path / "link.tar"
    with tarfile.open(archive, "w") as t:
        info = tarfile.TarInfo("inside/link")
        info.type = tarfile.SYMTYPE
        info.linkname = "../../etc/passwd"
        t.addfile(info)
    with pytest.raises(ValueError, match="outside"):
        extractall(str(archive), str(tmp_path / "out"), ".tar")


def test_extractall_rejects_unknown_extensions(tmp_path):
    with pytest.raises(ValueError, match="ext must be one of"):
        extractall(str(tmp_path / "a.rar"), str(tmp_path), ".rar")
    with pytest.raises(FileNotFoundError, match="no archive"):
        extractall(str(tmp_path / "none.zip"), str(tmp_path), ".zip")


def test_extractall_replaces_a_file_by_a_folder_of_the_same_name(tmp_path):
    archive = tmp_path / "a.tar"
    _tar(archive, {"thing/inner.txt": b"x"})
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "thing").write_bytes(b"a stale file")
    extractall(str(archive), str(dest), ".tar")
    assert (dest / "thing" / "inner.txt").read_bytes() == b"x"
