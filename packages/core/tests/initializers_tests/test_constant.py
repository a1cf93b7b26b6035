import numpy
import pytest

from kusari import initializers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("factory", "value"),
    [
        (lambda dtype: initializers.Constant(3.5, dtype), 3.5),
        (initializers.Zero, 0.0),
        (initializers.One, 1.0),
    ],
)
def test_constant_values(factory, value, dtype):
    a = numpy.empty((3, 2), dtype=dtype)
    init = factory(dtype=dtype)
    init(a)
    assert a.dtype == dtype
    numpy.testing.assert_array_equal(a, numpy.full((3, 2), value, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan(dtype):
    a = numpy.zeros((4,), dtype=dtype)
    initializers.NaN(dtype)(a)
    assert numpy.isnan(a).all()


def test_constant_array_broadcasts():
    a = numpy.empty((2, 3), dtype=numpy.float32)
    initializers.Constant(numpy.array([1.0, 2.0, 3.0]))(a)
    numpy.testing.assert_array_equal(a, [[1, 2, 3], [1, 2, 3]])


def test_constant_array_bad_shape():
    with pytest.raises(ValueError):
        initializers.Constant(numpy.ones(4))(numpy.empty((2, 3)))


def test_constant_dtype_mismatch():
    with pytest.raises(ValueError, match="dtype mismatch in Constant"):
        initializers.Constant(1.0, numpy.float16)(numpy.empty(2, numpy.float32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [1.0, -2.5])
def test_identity(dtype, scale):
    a = numpy.full((4, 4), 7, dtype=dtype)
    initializers.Identity(scale, dtype)(a)
    numpy.testing.assert_array_equal(a, scale * numpy.eye(4, dtype=dtype))


@pytest.mark.parametrize("shape", [(3, 4), (3,), (2, 2, 2), ()])
def test_identity_requires_square_matrix(shape):
    with pytest.raises(ValueError, match="only be used for 2D squared matrices"):
        initializers.Identity()(numpy.empty(shape))


def test_reprs():
    assert repr(initializers.Zero()) == "Zero(dtype=None)"
    assert repr(initializers.One(numpy.float16)) == "One(dtype=dtype('float16'))"
    assert "fill_value=2" in repr(initializers.Constant(2))
