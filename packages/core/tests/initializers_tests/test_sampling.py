import numpy
import pytest

from kusari import initializers


def test_upsampling_kernel_4():
    w = numpy.empty((2, 2, 4, 4), dtype=numpy.float32)
    initializers.UpsamplingDeconvFilter()(w)
    tent = numpy.array([0.25, 0.75, 0.75, 0.25])
    numpy.testing.assert_allclose(w[0, 0], numpy.outer(tent, tent))
    numpy.testing.assert_allclose(w[1, 1], numpy.outer(tent, tent))
    assert not w[0, 1].any() and not w[1, 0].any()


def test_upsampling_odd_kernel_center_is_one():
    w = numpy.empty((1, 1, 3, 3), dtype=numpy.float64)
    initializers.UpsamplingDeconvFilter()(w)
    assert w[0, 0, 1, 1] == 1.0
    numpy.testing.assert_allclose(w[0, 0, 0], [0.25, 0.5, 0.25])


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(3, 3, 4, 4), (2, 1, 5, 5), (2, 2, 3, 3, 3)])
def test_downsampling_sums_to_one(shape, dtype):
    w = numpy.empty(shape, dtype=dtype)
    initializers.DownsamplingConvFilter(dtype=dtype)(w)
    sums = w.reshape(shape[0], shape[1], -1).sum(axis=2)
    expected = (
        numpy.eye(shape[0], shape[1]) if shape[1] > 1 else numpy.ones((shape[0], 1))
    )
    numpy.testing.assert_allclose(sums, expected, rtol=2e-3)


def test_depthwise_out_channel_one():
    w = numpy.empty((3, 1, 2, 2))
    initializers.UpsamplingDeconvFilter()(w)
    numpy.testing.assert_allclose(w[:, 0], numpy.full((3, 2, 2), 0.25))


@pytest.mark.parametrize(
    "cls", [initializers.UpsamplingDeconvFilter, initializers.DownsamplingConvFilter]
)
def test_errors(cls):
    with pytest.raises(ValueError, match="Unsupported interpolation method: 'cubic'"):
        cls(interpolation="cubic")
    with pytest.raises(ValueError, match="ksize must be all same"):
        cls()(numpy.empty((2, 2, 3, 4)))
    with pytest.raises(ValueError, match="the first two axes must be equal"):
        cls()(numpy.empty((2, 3, 3, 3)))
    with pytest.raises(ValueError, match=r"got shape=\(2, 2\)"):
        cls()(numpy.empty((2, 2)))
