import numpy as np
import pytest

from kusari import backend
from kusari.backends import cuda as _cuda
from kusari.dataset import (
    ConcatWithAsyncTransfer,
    Converter,
    concat_examples,
    convert,
    converter,
    to_device,
)


def test_arrays_are_stacked():
    batch = [np.full((2,), i, dtype=np.float32) for i in range(3)]
    out = concat_examples(batch)
    assert out.shape == (3, 2) and out.dtype == np.float32
    np.testing.assert_array_equal(out[:, 0], [0, 1, 2])


def test_tuples_and_scalars():
    batch = [(np.zeros(2), 0), (np.ones(2), 1)]
    x, t = concat_examples(batch)
    assert x.shape == (2, 2)
    np.testing.assert_array_equal(t, [0, 1])


def test_dicts():
    batch = [{"x": np.zeros(2), "t": 3}, {"x": np.ones(2), "t": 4}]
    out = concat_examples(batch)
    assert set(out) == {"x", "t"} and out["x"].shape == (2, 2)
    np.testing.assert_array_equal(out["t"], [3, 4])


@pytest.mark.parametrize("padding", [-1, 0.5])
def test_padding(padding):
    batch = [np.ones((1, 3)), np.ones((2, 1))]
    out = concat_examples(batch, padding=padding)
    assert out.shape == (2, 2, 3)
    expected = np.full((2, 2, 3), padding)
    expected[0, :1, :3] = 1
    expected[1, :2, :1] = 1
    np.testing.assert_array_equal(out, expected)


def test_padding_per_element_tuple_and_dict():
    batch = [(np.array([1]), np.array([1, 2])), (np.array([1, 2]), np.array([3]))]
    a, b = concat_examples(batch, padding=(0, -1))
    np.testing.assert_array_equal(a, [[1, 0], [1, 2]])
    np.testing.assert_array_equal(b, [[1, 2], [3, -1]])
    batch = [{"a": np.array([1])}, {"a": np.array([1, 2])}]
    np.testing.assert_array_equal(
        concat_examples(batch, padding={"a": 9})["a"], [[1, 9], [1, 2]]
    )


def test_padding_on_python_scalars():
    np.testing.assert_array_equal(concat_examples([1, 2], padding=0), [1, 2])


@pytest.mark.parametrize("device", [None, -1, "@numpy", backend.CpuDevice()])
def test_device(device):
    out = concat_examples([np.zeros(2), np.ones(2)], device)
    assert isinstance(out, np.ndarray)


def test_errors():
    with pytest.raises(ValueError, match="empty"):
        concat_examples([])
    with pytest.raises(ValueError, match="same shape"):
        concat_examples([np.zeros(2), np.zeros(3)])
    with pytest.raises(ValueError, match="tuple of length 2"):
        concat_examples([(1, 2), (1,)])
    with pytest.raises(ValueError, match="padding has 1"):
        concat_examples([(1, 2), (3, 4)], padding=(0,))
    with pytest.raises(ValueError, match="key 'b'"):
        concat_examples([{"a": 1, "b": 2}, {"a": 3}])


def test_to_device_nested():
    x = {"a": (np.zeros(1), [np.ones(1)])}
    assert to_device(None, x) is x
    out = to_device(-1, x)
    np.testing.assert_array_equal(out["a"][1][0], [1.0])


def test_converter_decorator_passes_device_object():
    seen = []

    @converter()
    def conv(batch, device):
        seen.append(device)
        return batch

    assert isinstance(conv, Converter)
    conv([1], -1)
    conv([1], None)
    conv([1])
    assert isinstance(seen[0], backend.Device)
    assert seen[1:] == [None, None]
    with pytest.raises(TypeError, match="converter"):
        converter()(3)


def test_call_converter_legacy_function():
    seen = []

    def legacy(batch, device=None):
        seen.append(device)
        return batch

    convert.call_converter(legacy, [1], -1)
    convert.call_converter(concat_examples, [np.zeros(1)], -1)
    assert seen == [-1]
    # Old-style converters take an int, whatever spelling of the CPU came
    # (an Evaluator or updater holds a Device), and None stays None.
    for spec in ("@numpy", backend.CpuDevice(), None):
        convert.call_converter(legacy, [1], spec)
    assert seen == [-1, -1, -1, None]


def test_call_converter_gives_converters_a_device_and_keeps_the_old_name():
    seen = []

    @converter()
    def modern(batch, device):
        seen.append(device)
        return batch

    assert convert.call_converter(modern, [1], -1) == [1]
    assert isinstance(seen[0], backend.Device)
    assert convert._call_converter is convert.call_converter


def test_call_converter_rejects_a_non_callable():
    with pytest.raises(TypeError, match="call_converter: expected a converter"):
        convert.call_converter("concat", [1])


def test_concat_with_async_transfer_and_conveyor():
    conv = ConcatWithAsyncTransfer()
    x, t = conv([(np.zeros(2), 1), (np.ones(2), 2)], "@numpy")
    assert x.shape == (2, 2)
    c = convert.Conveyor("@numpy")
    c.put(np.arange(2))
    c.put(np.arange(3))
    assert len(c.get()) == 2 and len(c.get()) == 3
    with pytest.raises(IndexError):
        c.get()


def test_concat_examples_func_is_plain():
    out = convert.concat_examples_func([np.zeros(1), np.zeros(1)], None)
    assert out.shape == (2, 1)


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda.available, reason="CuPy / a CUDA GPU is not available")
def test_gpu_transfer():
    cuda = _cuda
    out = concat_examples([np.zeros(2), np.ones(2)], 0)
    assert backend.get_array_module(out) is cuda.cupy
    padded = concat_examples([cuda.cupy.zeros(1), cuda.cupy.ones(2)], padding=5)
    np.testing.assert_array_equal(cuda.to_cpu(padded), [[0, 5], [1, 1]])


def test_padding_can_be_positional():
    out = concat_examples([np.ones(1), np.ones(2)], None, 0)
    np.testing.assert_array_equal(out, [[1, 0], [1, 1]])
