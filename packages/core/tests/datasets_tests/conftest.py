import os
import sys

import pytest

# The local HTTP server helper lives next to the download tests.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "dataset_tests"))

from _local_http import LocalServer

from kusari.dataset import download


@pytest.fixture
def dataset_root(tmp_path, monkeypatch):
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
