import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _ref(out_hw):
    def ref(theta):
        h, w = out_hw
        y = np.empty((len(theta), 2, h, w))
        for i, yt in enumerate(np.linspace(-1, 1, h)):
            for j, xt in enumerate(np.linspace(-1, 1, w)):
                y[:, :, i, j] = theta @ np.array([xt, yt, 1.0])
        return y

    return ref


@pytest.mark.parametrize("n,out", [(2, (3, 4)), (1, (1, 5)), (3, (2, 2))])
def test_spatial_transformer_grid(n, out, float_dtype, device):
    check_op(
        lambda t: F.spatial_transformer_grid(t, out),
        _ref(out),
        [(n, 2, 3)],
        dtype=float_dtype,
        device=device,
    )


def test_spatial_transformer_grid_identity():
    theta = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
    g = F.spatial_transformer_grid(theta, (2, 3)).array
    np.testing.assert_allclose(g[0, 0], [[-1, 0, 1], [-1, 0, 1]])
    np.testing.assert_allclose(g[0, 1], [[-1, -1, -1], [1, 1, 1]])


def test_spatial_transformer_grid_errors():
    with pytest.raises(type_check.InvalidType, match="SpatialTransformerGrid"):
        F.spatial_transformer_grid(np.zeros((1, 3, 3), np.float32), (2, 2))
    with pytest.raises(ValueError, match="output_shape"):
        F.spatial_transformer_grid(np.zeros((1, 2, 3), np.float32), (0, 2))
    with pytest.raises(ValueError, match="use_cudnn"):
        F.spatial_transformer_grid(
            np.zeros((1, 2, 3), np.float32), (2, 2), use_cudnn=True
        )
