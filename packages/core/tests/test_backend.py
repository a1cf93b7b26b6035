"""Backends: devices, array modules, and the CPU-only behaviour of cuda."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
from kusari import backend
from kusari.backends import cuda


@pytest.mark.parametrize(
    "spec", ["@numpy", -1, "-1", "-2", np, kusari.backend.CpuDevice()]
)
def test_cpu_specs(spec):
    dev = kusari.get_device(spec)
    assert isinstance(dev, backend.CpuDevice) and dev.xp is np and dev.name == "@numpy"


@pytest.mark.parametrize("spec", ["numpy", "@cupy:x", "@intel64", "1.5", "", 1.5, None])
def test_invalid_specs(spec):
    with pytest.raises(ValueError, match="(?i)device"):
        kusari.get_device(spec)


def test_device_send_nested():
    dev = kusari.get_device("@numpy")
    a = np.zeros(2)
    out = dev.send({"a": [a, (a, None)], "n": 3})
    assert out["a"][0] is a and out["a"][1][1] is None and out["n"] == 3
    assert dev.send(np.float32(2)).shape == ()


def test_device_equality_and_context():
    assert kusari.get_device(-1) == kusari.get_device("@numpy")
    with kusari.using_device("@numpy"):
        pass
    with kusari.get_device("@numpy"):
        pass
    assert repr(kusari.get_device(-1)) == "<CpuDevice @numpy>"


def test_get_array_module_and_device_from_array():
    x = kusari.Variable(np.zeros(1, np.float32))
    assert backend.get_array_module(x) is np
    assert backend.get_array_module(np.zeros(1)) is np
    assert backend.get_device_from_array(np.zeros(1)) == kusari.get_device(-1)


def test_copyto():
    dst = np.zeros(3)
    backend.copyto(dst, np.arange(3.0))
    np.testing.assert_array_equal(dst, [0, 1, 2])
    with pytest.raises(TypeError, match="cannot copy into list"):
        backend.copyto([0], np.zeros(1))


@pytest.mark.skipif(cuda.available, reason="checks the behaviour without CuPy")
class TestWithoutCuPy:
    def test_module_state(self):
        assert cuda.available is False and cuda.cupy is None
        assert not isinstance(np.zeros(1), cuda.ndarray)
        assert kusari.cuda is cuda

    def test_to_cpu_passes_numpy_through(self):
        a = np.zeros(2)
        assert cuda.to_cpu(a) is a
        assert cuda.to_cpu(None) is None
        assert cuda.to_cpu([a, None])[0] is a
        assert cuda.to_cpu(kusari.Variable(a)) is a

    def test_to_cpu_rejects_other_objects(self):
        class HasArray:  # like a mock: an ``array`` attribute, not a Variable
            array = np.zeros(1)

        with pytest.raises(TypeError, match="to_cpu: expected a NumPy or CuPy"):
            cuda.to_cpu(HasArray())

    def test_gpu_requests_say_cupy_is_missing(self):
        for call in (
            lambda: cuda.to_gpu(np.zeros(1)),
            cuda.check_cuda_available,
            lambda: kusari.get_device(0),
            lambda: kusari.get_device("@cupy:0"),
        ):
            with pytest.raises(RuntimeError, match="CuPy could not be imported"):
                call()

    def test_cpu_fallbacks(self):
        assert cuda.get_array_module(np.zeros(1)) is np
        assert cuda.get_device_from_array(np.zeros(1)) is cuda.DummyDevice
        assert cuda.fuse(lambda x: x)(3) == 3
        assert cuda.should_use_cudnn("==always") is False


@pytest.mark.gpu
@pytest.mark.skipif(not cuda.available, reason="CuPy / a CUDA GPU is not available")
def test_gpu_round_trip():
    x = kusari.Variable(np.arange(3, dtype=np.float32))
    x.to_device("@cupy:0")
    assert isinstance(x.array, cuda.ndarray)
    y = kusari.functions.sum(x * x)
    y.backward()
    np.testing.assert_allclose(cuda.to_cpu(x.grad), [0, 2, 4])
    x.to_cpu()
    assert isinstance(x.array, np.ndarray)


def test_get_device_from_array_takes_several_arrays():
    dev = backend.get_device_from_array(np.zeros(2), kusari.Variable(np.ones(1)), 3)
    assert isinstance(dev, backend.CpuDevice)
    assert isinstance(backend.get_device_from_array(), backend.CpuDevice)


def test_send_turns_numpy_scalars_into_arrays():
    # numpy.float64 subclasses float, yet it is array data, not a Python
    # number; Python numbers themselves pass through.
    sent = backend.CpuDevice().send((np.float64(2.5), np.int32(3), 1.5, None))
    assert isinstance(sent[0], np.ndarray) and sent[0].shape == () and sent[0] == 2.5
    assert isinstance(sent[1], np.ndarray) and sent[1].dtype == np.int32
    assert sent[2:] == (1.5, None)


def test_cpu_private_to_cpu_helper():
    from kusari.backends import _cpu

    a = np.arange(3)
    assert _cpu._to_cpu(a) is a
    assert _cpu._to_cpu(None) is None
    assert isinstance(_cpu._to_cpu(np.float32(1)), np.ndarray)
    pair = _cpu._to_cpu((a, [np.float64(2)]))
    assert pair[0] is a and isinstance(pair[1][0], np.ndarray)
