"""Statistics, dtypes and errors of the random initializers."""

import math

import numpy
import pytest

import kusari
from kusari import initializers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPE = (200, 150, 2)  # fan_in = 300, fan_out = 400; 60k samples

# (initializer factory, expected std for SHAPE, distribution)
CASES = {
    "Normal": (lambda **kw: initializers.Normal(0.3, **kw), 0.3, "normal"),
    "LeCunNormal": (
        lambda **kw: initializers.LeCunNormal(2.0, **kw),
        2.0 * math.sqrt(1 / 300),
        "normal",
    ),
    "GlorotNormal": (
        lambda **kw: initializers.GlorotNormal(**kw),
        math.sqrt(2 / 700),
        "normal",
    ),
    "HeNormal": (
        lambda **kw: initializers.HeNormal(**kw),
        math.sqrt(2 / 300),
        "normal",
    ),
    "HeNormal-fan_out": (
        lambda **kw: initializers.HeNormal(0.5, fan_option="fan_out", **kw),
        0.5 * math.sqrt(2 / 400),
        "normal",
    ),
    "Uniform": (
        lambda **kw: initializers.Uniform(0.3, **kw),
        0.3 / math.sqrt(3),
        "uniform",
    ),
    "LeCunUniform": (
        lambda **kw: initializers.LeCunUniform(**kw),
        math.sqrt(3 / 300) / math.sqrt(3),
        "uniform",
    ),
    "GlorotUniform": (
        lambda **kw: initializers.GlorotUniform(2.0, **kw),
        2.0 * math.sqrt(6 / 700) / math.sqrt(3),
        "uniform",
    ),
    "HeUniform": (
        lambda **kw: initializers.HeUniform(**kw),
        math.sqrt(6 / 300) / math.sqrt(3),
        "uniform",
    ),
    "HeUniform-fan_out": (
        lambda **kw: initializers.HeUniform(fan_option="fan_out", **kw),
        math.sqrt(6 / 400) / math.sqrt(3),
        "uniform",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("dtype", DTYPES)
def test_statistics(name, dtype):
    factory, std, kind = CASES[name]
    array = numpy.empty(SHAPE, dtype=dtype)
    factory(dtype=dtype, rng=numpy.random.RandomState(0))(array)
    assert array.dtype == dtype
    values = array.astype(numpy.float64)
    # 60k samples: the sample std is within ~0.6% and the mean within
    # ~0.02 std of the truth; the tolerances leave room for float16.
    assert abs(values.mean()) < 0.02 * std
    assert values.std() == pytest.approx(std, rel=0.02)
    if kind == "uniform":
        bound = std * math.sqrt(3)
        assert numpy.abs(values).max() <= bound * (1 + 1e-3)
        assert numpy.abs(values).max() > 0.99 * bound


@pytest.mark.parametrize("name", list(CASES))
def test_rng_reproducible(name):
    factory, _, _ = CASES[name]
    a = numpy.empty((20, 30), dtype=numpy.float32)
    b = numpy.empty((20, 30), dtype=numpy.float32)
    factory(rng=numpy.random.RandomState(7))(a)
    factory(rng=numpy.random.RandomState(7))(b)
    numpy.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", list(CASES))
def test_generator_rng(name):
    factory, _, _ = CASES[name]
    a = numpy.empty((20, 30), dtype=numpy.float64)
    b = numpy.empty((20, 30), dtype=numpy.float64)
    factory(rng=numpy.random.default_rng(3))(a)
    factory(rng=numpy.random.default_rng(3))(b)
    numpy.testing.assert_array_equal(a, b)


def test_global_numpy_random_is_used_without_rng():
    numpy.random.seed(11)
    a = numpy.empty((5, 6))
    initializers.Normal()(a)
    numpy.random.seed(11)
    b = numpy.empty((5, 6))
    initializers.Normal()(b)
    numpy.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "factory",
    [
        initializers.LeCunNormal,
        initializers.GlorotNormal,
        initializers.HeNormal,
        initializers.LeCunUniform,
        initializers.GlorotUniform,
        initializers.HeUniform,
    ],
)
@pytest.mark.parametrize("shape", [(), (10,)])
def test_fan_based_need_two_axes(factory, shape):
    with pytest.raises(ValueError, match="at least two axes"):
        factory()(numpy.empty(shape, dtype=numpy.float32))


@pytest.mark.parametrize("factory", [initializers.HeNormal, initializers.HeUniform])
def test_invalid_fan_option(factory):
    with pytest.raises(ValueError, match="fan_option should be either 'fan_in'"):
        factory(fan_option="fan_avg")


@pytest.mark.parametrize("name", list(CASES))
def test_dtype_mismatch(name):
    factory, _, _ = CASES[name]
    with pytest.raises(ValueError, match="dtype mismatch.*float64.*float32"):
        factory(dtype=numpy.float32)(numpy.empty((3, 4), dtype=numpy.float64))


def test_scale_conv_kernel_uses_receptive_field():
    # fan_in of a (32, 16, 3, 3) kernel is 16 * 9 = 144.
    w = numpy.empty((32, 16, 3, 3), dtype=numpy.float64)
    initializers.LeCunUniform(rng=numpy.random.RandomState(0))(w)
    assert numpy.abs(w).max() <= math.sqrt(3 / 144)
    assert numpy.abs(w).max() > 0.95 * math.sqrt(3 / 144)


def test_default_scales():
    assert initializers.Normal().scale == 0.05
    assert initializers.Uniform().scale == 0.05
    assert initializers.Orthogonal().scale == 1.1
    for cls in (initializers.LeCunNormal, initializers.HeUniform):
        assert cls().scale == 1.0
    assert initializers.HeNormal().fan_option == "fan_in"


def test_generate_array_default_dtype_follows_config():
    with kusari.using_config("dtype", numpy.float16):
        a = initializers.generate_array(initializers.Normal(), (4, 4), numpy)
    assert a.dtype == numpy.float16
