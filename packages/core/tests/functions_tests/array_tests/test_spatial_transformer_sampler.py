import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(x, grid):
    n, c, h, w = x.shape
    oh, ow = grid.shape[2:]
    y = np.zeros((n, c, oh, ow))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                u = (grid[b, 0, i, j] + 1) * (w - 1) / 2
                v = (grid[b, 1, i, j] + 1) * (h - 1) / 2
                u0, v0 = int(np.floor(u)), int(np.floor(v))
                for yy, wy in ((v0, 1 - (v - v0)), (v0 + 1, v - v0)):
                    for xx, wx in ((u0, 1 - (u - u0)), (u0 + 1, u - u0)):
                        if 0 <= yy < h and 0 <= xx < w:
                            y[b, :, i, j] += wy * wx * x[b, :, yy, xx]
    return y


def _grid(outside, shape, hw):
    """Grid points whose pixel coordinates stay 0.2 away from the kinks.

    With ``outside``, points may lie up to one pixel outside the image
    (where they blend with the zero border).
    """

    def make(rng, dtype):
        g = np.empty(shape)
        for k, size in ((0, hw[1]), (1, hw[0])):
            lo, hi = (-1, size) if outside else (0, size - 1)
            pix = rng.integers(lo, hi, shape[:1] + shape[2:]) + rng.uniform(
                0.2, 0.8, shape[:1] + shape[2:]
            )
            g[:, k] = pix * 2 / (size - 1) - 1
        return g.astype(dtype)

    return make


@pytest.mark.parametrize(
    "xshape,gshape,outside",
    [((2, 3, 4, 5), (2, 2, 3, 2), False), ((1, 2, 3, 3), (1, 2, 2, 3), True)],
)
def test_spatial_transformer_sampler(xshape, gshape, outside, float_dtype, device):
    tol = {"double_backward": (2e-1, 2e-1)} if float_dtype == np.float16 else None
    check_op(
        F.spatial_transformer_sampler,
        _ref,
        [xshape, _grid(outside, gshape, xshape[2:])],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_spatial_transformer_sampler_identity_grid():
    x = np.random.default_rng(0).random((2, 3, 4, 5)).astype(np.float32)
    theta = np.tile(np.array([[1, 0, 0], [0, 1, 0]], np.float32), (2, 1, 1))
    grid = F.spatial_transformer_grid(theta, (4, 5))
    y = F.spatial_transformer_sampler(x, grid)
    np.testing.assert_allclose(y.array, x, rtol=1e-5, atol=1e-6)


def test_spatial_transformer_sampler_far_outside_is_zero():
    x = np.ones((1, 1, 2, 2), np.float32)
    grid = np.full((1, 2, 1, 1), 5.0, np.float32)
    np.testing.assert_array_equal(F.spatial_transformer_sampler(x, grid).array, 0)


def test_spatial_transformer_sampler_errors():
    x = np.zeros((1, 1, 2, 2), np.float32)
    with pytest.raises(type_check.InvalidType, match="SpatialTransformerSampler"):
        F.spatial_transformer_sampler(x, np.zeros((1, 3, 2, 2), np.float32))
    with pytest.raises(type_check.InvalidType, match="dtype"):
        F.spatial_transformer_sampler(x, np.zeros((1, 2, 2, 2), np.float64))
    with pytest.raises(type_check.InvalidType, match="shape"):
        F.spatial_transformer_sampler(x, np.zeros((2, 2, 2, 2), np.float32))
