import numpy
import pytest

from kusari import initializer


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ((3, 4), (4, 3)),
        ((64, 3, 5, 5), (75, 1600)),
        ((2, 3, 4, 5, 6), (360, 240)),
        ((1, 1), (1, 1)),
        ((7, 0), (0, 7)),
    ],
)
def test_get_fans(shape, expected):
    assert initializer.get_fans(shape) == expected


@pytest.mark.parametrize("shape", [(), (5,)])
def test_get_fans_needs_two_axes(shape):
    with pytest.raises(ValueError, match="at least two axes"):
        initializer.get_fans(shape)


def test_get_fans_needs_tuple():
    with pytest.raises(ValueError, match="shape must be a tuple, got list"):
        initializer.get_fans([3, 4])


def test_base_call_not_implemented():
    with pytest.raises(NotImplementedError, match="Initializer must implement"):
        initializer.Initializer()(numpy.empty(3))


@pytest.mark.parametrize("dtype", [None, numpy.float16, "float32", numpy.float64])
def test_dtype_is_normalized(dtype):
    init = initializer.Initializer(dtype)
    if dtype is None:
        assert init.dtype is None
    else:
        assert init.dtype == numpy.dtype(dtype)


def test_repr_lists_public_fields():
    from kusari.initializers import Normal

    assert repr(Normal(0.5)) == "Normal(scale=0.5, rng=None, dtype=None)"
