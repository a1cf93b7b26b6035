import numpy
import pytest

import kusari
from kusari import initializers
from kusari.initializers import _get_initializer

ALL_NAMES = [
    "Constant",
    "DownsamplingConvFilter",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "LeCunNormal",
    "LeCunUniform",
    "NaN",
    "Normal",
    "One",
    "Orthogonal",
    "Uniform",
    "UpsamplingDeconvFilter",
    "Zero",
    "generate_array",
]


def test_public_names():
    assert sorted(initializers.__all__) == sorted(ALL_NAMES)
    for name in ALL_NAMES:
        assert hasattr(initializers, name)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_dtype_from_initializer(dtype):
    a = initializers.generate_array(initializers.One(dtype), (2, 3), numpy)
    assert a.dtype == dtype and a.shape == (2, 3)
    assert (a == 1).all()


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float64])
def test_dtype_argument(dtype):
    a = initializers.generate_array(initializers.One(), (2,), numpy, dtype=dtype)
    assert a.dtype == dtype


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_dtype_from_config(dtype):
    with kusari.using_config("dtype", numpy.dtype(dtype)):
        a = initializers.generate_array(initializers.Zero(), (3,), numpy)
    assert a.dtype == dtype


def test_dtype_argument_agreeing_with_initializer():
    a = initializers.generate_array(
        initializers.Zero("float32"), (1,), numpy, dtype=numpy.float32
    )
    assert a.dtype == numpy.float32


def test_dtype_mismatch():
    with pytest.raises(ValueError, match="dtype mismatch: float64 requested"):
        initializers.generate_array(
            initializers.Zero(numpy.float32), (1,), numpy, dtype=numpy.float64
        )


def test_plain_callable_and_int_shape():
    def fill(array):
        array[...] = 4

    a = initializers.generate_array(fill, 5, numpy, dtype=numpy.float32)
    assert a.shape == (5,) and (a == 4).all()


def test_device_argument_cpu():
    a = initializers.generate_array(initializers.One(), (2,), numpy, device="@numpy")
    assert isinstance(a, numpy.ndarray)


def test_get_initializer_none_is_lecun_normal():
    assert isinstance(_get_initializer(None), initializers.LeCunNormal)


@pytest.mark.parametrize("value", [0, 1.5, numpy.float32(2)])
def test_get_initializer_scalar(value):
    init = _get_initializer(value)
    assert isinstance(init, initializers.Constant)
    assert init.fill_value == value


def test_get_initializer_array():
    arr = numpy.arange(3.0)
    init = _get_initializer(arr)
    assert isinstance(init, initializers.Constant)
    assert init.fill_value is arr


def test_get_initializer_passthrough():
    normal = initializers.Normal()
    assert _get_initializer(normal) is normal

    def fill(array):
        array[...] = 0

    assert _get_initializer(fill) is fill


def test_get_initializer_rejects_non_callable():
    with pytest.raises(TypeError, match="invalid type of initializer: list"):
        _get_initializer([1, 2])


def test_mixed16_makes_float16_arrays():
    # As Chainer's initializers: kusari.mixed16, given to an initializer, to
    # generate_array or configured, means float16 arrays.
    normal = initializers.Normal(dtype=kusari.mixed16)
    assert normal.dtype == numpy.float16
    assert initializers.generate_array(normal, (2,), numpy).dtype == numpy.float16
    a = initializers.generate_array(
        initializers.One(), (2,), numpy, dtype=kusari.mixed16
    )
    assert a.dtype == numpy.float16
    with kusari.using_config("dtype", kusari.mixed16):
        a = initializers.generate_array(initializers.Zero(), (2,), numpy)
    assert a.dtype == numpy.float16
    # mixed16 and float16 agree; float32 and mixed16 do not.
    initializers.generate_array(normal, (2,), numpy, dtype=numpy.float16)
    with pytest.raises(ValueError, match="dtype mismatch"):
        initializers.generate_array(normal, (2,), numpy, dtype=numpy.float32)
