"""DLPack interop: kusari.from_dlpack and Variable.__dlpack__ share memory."""

from __future__ import annotations

import importlib.util
import inspect
from typing import Any

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.backends import cuda


def _address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def test_from_dlpack_numpy_shares_memory() -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    v = kusari.from_dlpack(a)
    assert isinstance(v, kusari.Variable)
    assert v.requires_grad
    assert isinstance(v.array, np.ndarray)
    assert v.shape == (3, 4) and v.dtype == np.float32
    assert _address(v.array) == _address(a)
    v.array[1, 2] = -5.0
    assert a[1, 2] == -5.0


def test_from_dlpack_keeps_strides_of_a_view() -> None:
    a = np.arange(24, dtype=np.float64).reshape(4, 6)
    view = a[::2, 1::2]
    v = kusari.from_dlpack(view, requires_grad=False)
    assert not v.requires_grad
    assert _address(v.array) == _address(view)
    np.testing.assert_array_equal(v.array, view)


def test_numpy_reads_a_variable_without_copy() -> None:
    v = kusari.Variable(np.linspace(0, 1, 5, dtype=np.float32))
    assert v.__dlpack_device__() == (1, 0)
    b = np.from_dlpack(v)
    assert _address(b) == _address(v.array)
    b[0] = 9.0
    assert v.array[0] == 9.0
    w = kusari.from_dlpack(v)
    assert _address(w.array) == _address(v.array)


@pytest.mark.skipif(
    "copy" not in inspect.signature(np.from_dlpack).parameters,
    reason="this NumPy's from_dlpack has no copy argument",
)
def test_dlpack_arguments_reach_the_array() -> None:
    v = kusari.Variable(np.ones(4, np.float32))
    b = np.from_dlpack(v, copy=True)
    assert _address(b) != _address(v.array)
    np.testing.assert_array_equal(b, v.array)


def test_gradient_is_exported_without_copy() -> None:
    x = kusari.from_dlpack(np.array([1.0, -2.0, 3.0], np.float32))
    F.sum(x * x).backward()
    g = np.from_dlpack(x.grad_var)
    assert _address(g) == _address(x.grad)
    np.testing.assert_allclose(g, [2.0, -4.0, 6.0])


def test_variable_without_array() -> None:
    with pytest.raises(TypeError, match="has no array"):
        kusari.Variable().__dlpack__()
    with pytest.raises(TypeError, match="has no array"):
        kusari.Variable().__dlpack_device__()


def test_rejects_non_dlpack_objects() -> None:
    with pytest.raises(
        TypeError, match=r"from_dlpack: expected an object .* builtins.list"
    ):
        kusari.from_dlpack([1.0, 2.0])
    capsule = np.zeros(2).__dlpack__()
    with pytest.raises(TypeError, match="pass the tensor itself"):
        kusari.from_dlpack(capsule)


class _FakeDevice:
    def __init__(self, device_type: int) -> None:
        self.device_type = device_type

    def __dlpack__(self, **kwargs: Any) -> Any:
        raise AssertionError("must not be called")

    def __dlpack_device__(self) -> tuple[int, int]:
        return (self.device_type, 0)


def test_unknown_device_type() -> None:
    with pytest.raises(ValueError, match="device type 4 is not supported"):
        kusari.from_dlpack(_FakeDevice(4))


def test_cuda_array_without_cupy(monkeypatch: Any) -> None:
    monkeypatch.setattr(cuda, "available", False)
    with pytest.raises(RuntimeError, match="needs CuPy"):
        kusari.from_dlpack(_FakeDevice(2))


@pytest.mark.gpu
@pytest.mark.skipif(not cuda.available, reason="CuPy / a CUDA GPU is not available")
def test_cupy_round_trip() -> None:
    cp = cuda.cupy
    a = cp.arange(6, dtype=cp.float32)
    v = kusari.from_dlpack(a)
    assert isinstance(v.array, cp.ndarray)
    assert v.array.data.ptr == a.data.ptr
    assert v.__dlpack_device__()[0] == 2
    b = cp.from_dlpack(v)
    assert b.data.ptr == a.data.ptr


# -- PyTorch ------------------------------------------------------------------


_HAVE_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not _HAVE_TORCH, reason="PyTorch is not installed")


def _torch_has_cuda() -> bool:
    # Import torch (slow) only where CuPy says there is a GPU at all.
    if not (_HAVE_TORCH and cuda.available):
        return False
    import torch

    return bool(torch.cuda.is_available())


def _torch() -> Any:
    import torch

    return torch


@needs_torch
def test_torch_reads_a_variable_without_copy() -> None:
    torch = _torch()
    v = kusari.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    t = torch.from_dlpack(v)
    assert t.data_ptr() == _address(v.array)
    assert t.dtype == torch.float32 and tuple(t.shape) == (2, 3)
    t.mul_(2)
    np.testing.assert_array_equal(v.array, np.arange(6).reshape(2, 3) * 2)


@needs_torch
def test_kusari_reads_a_tensor_and_hands_back_its_gradient() -> None:
    torch = _torch()
    t = torch.linspace(-1, 1, 8, dtype=torch.float32).reshape(2, 4)
    x = kusari.from_dlpack(t)
    assert _address(x.array) == t.data_ptr()
    y = F.sum(F.tanh(x) * 3)
    y.backward()
    g = torch.from_dlpack(x.grad)
    assert g.data_ptr() == _address(x.grad)
    expected = 3 * (1 - torch.tanh(t) ** 2)
    torch.testing.assert_close(g, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.gpu
@pytest.mark.skipif(not cuda.available, reason="CuPy / a CUDA GPU is not available")
@pytest.mark.skipif(not _torch_has_cuda(), reason="no PyTorch with CUDA installed")
def test_torch_cuda_round_trip() -> None:
    torch = _torch()
    t = torch.arange(4, dtype=torch.float32, device="cuda")
    x = kusari.from_dlpack(t)
    assert x.array.data.ptr == t.data_ptr()
    back = torch.from_dlpack(x)
    assert back.data_ptr() == t.data_ptr()
