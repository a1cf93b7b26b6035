import numpy
import pytest

from kusari import initializers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
TOL = {numpy.float16: 5e-3, numpy.float32: 1e-5, numpy.float64: 1e-12}


def _as_matrix(a):
    return a.reshape(len(a), -1).astype(numpy.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 5), (5, 5), (6, 2), (4, 3, 2, 2), (2, 8, 1)])
@pytest.mark.parametrize("scale", [1.0, 1.1, 0.5])
def test_orthogonality(shape, dtype, scale):
    a = numpy.empty(shape, dtype=dtype)
    initializers.Orthogonal(scale, dtype, rng=numpy.random.RandomState(0))(a)
    assert a.dtype == dtype
    m = _as_matrix(a) / scale
    tol = TOL[dtype] * 10
    if m.shape[0] <= m.shape[1]:  # orthonormal rows
        numpy.testing.assert_allclose(m @ m.T, numpy.eye(m.shape[0]), atol=tol)
    else:  # orthonormal columns
        numpy.testing.assert_allclose(m.T @ m, numpy.eye(m.shape[1]), atol=tol)


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_zero_dim_is_plus_minus_scale(scale):
    a = numpy.empty((), dtype=numpy.float32)
    initializers.Orthogonal(scale, rng=numpy.random.RandomState(1))(a)
    assert abs(float(a)) == scale


def test_empty_array_rejected():
    with pytest.raises(ValueError, match="must be non-empty"):
        initializers.Orthogonal()(numpy.empty((0, 3)))


@pytest.mark.parametrize(
    ("mode", "shape", "ok"),
    [
        ("auto", (2, 5), True),
        ("auto", (5, 2), True),
        ("projection", (2, 5), True),
        ("projection", (5, 2), False),
        ("embedding", (5, 2), True),
        ("embedding", (2, 5), False),
        ("basis", (3, 3), True),
        ("basis", (3, 1, 3), True),
        ("basis", (3, 2, 3), False),
    ],
)
def test_modes(mode, shape, ok):
    init = initializers.Orthogonal(mode=mode)
    a = numpy.empty(shape)
    if ok:
        init(a)
    else:
        with pytest.raises(ValueError, match=f"Cannot make orthogonal {mode}"):
            init(a)


def test_invalid_mode():
    with pytest.raises(ValueError, match="Invalid mode: 'square'. Choose from"):
        initializers.Orthogonal(mode="square")


def test_rng_reproducible():
    a, b = numpy.empty((4, 6)), numpy.empty((4, 6))
    initializers.Orthogonal(rng=numpy.random.RandomState(5))(a)
    initializers.Orthogonal(rng=numpy.random.RandomState(5))(b)
    numpy.testing.assert_array_equal(a, b)


def test_distinct_draws_differ():
    a, b = numpy.empty((4, 6)), numpy.empty((4, 6))
    init = initializers.Orthogonal(rng=numpy.random.RandomState(5))
    init(a)
    init(b)
    assert not numpy.allclose(a, b)
