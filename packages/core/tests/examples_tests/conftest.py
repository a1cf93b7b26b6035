"""Load example scripts as modules for smoke tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from kusari.backends import cuda

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def load_example():
    def load(relpath: str):
        path = EXAMPLES / relpath
        sys.path.insert(0, str(EXAMPLES))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    yield load
    if str(EXAMPLES) in sys.path:
        sys.path.remove(str(EXAMPLES))


@pytest.fixture
def offline(monkeypatch):
    """Make dataset downloads fail at once, as on a machine without network."""
    import kusari.datasets

    def unavailable(*args, **kwargs):
        raise OSError("offline (test)")

    for name in (
        "get_mnist",
        "get_fashion_mnist",
        "get_cifar10",
        "get_cifar100",
        "get_ptb_words",
        "get_svhn",
    ):
        monkeypatch.setattr(kusari.datasets, name, unavailable)


_gpu = pytest.mark.skipif(
    not cuda.available, reason="CuPy / a CUDA GPU is not available"
)


@pytest.fixture(
    params=["@numpy", pytest.param("@cupy:0", marks=[pytest.mark.gpu, _gpu])]
)
def dev(request):
    """``--device`` options: each example on the CPU and, where CuPy is present,
    on GPU 0."""
    return ["--device", request.param]
