import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _gn_ref(x, groups, gamma, beta, eps=1e-5):
    n, c = x.shape[:2]
    xr = x.reshape(n, groups, -1)
    xr = (xr - xr.mean(axis=2, keepdims=True)) / np.sqrt(
        xr.var(axis=2, keepdims=True) + eps
    )
    shape = (1, c) + (1,) * (x.ndim - 2)
    return xr.reshape(x.shape) * gamma.reshape(shape) + beta.reshape(shape)


@pytest.mark.parametrize(
    "shape,groups", [((2, 4, 3), 2), ((2, 6, 2, 2), 3), ((3, 2, 4), 1), ((3, 4), 2)]
)
def test_group_normalization(shape, groups, float_dtype, device):
    c = shape[1]
    tol = None
    if float_dtype == np.float16:
        tol = {"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)}
    check_op(
        lambda x, g, b: F.group_normalization(x, groups, g, b),
        lambda x, g, b: _gn_ref(x, groups, g, b),
        [shape, (c,), (c,)],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_group_normalization_eps():
    x = np.array([[[0.0], [2.0]]])
    y = F.group_normalization(x, 1, np.ones(2), np.zeros(2), eps=3.0)
    np.testing.assert_allclose(y.array.ravel(), [-0.5, 0.5])


def test_group_normalization_errors():
    g = np.ones(4, np.float32)
    with pytest.raises(ValueError, match="divide"):
        F.group_normalization(np.zeros((2, 4, 3), np.float32), 3, g, g)
    with pytest.raises(ValueError, match="dimensions"):
        F.group_normalization(np.zeros((4,), np.float32), 2, g, g)
    with pytest.raises(TypeError, match="groups"):
        F.group_normalization(np.zeros((2, 4, 3), np.float32), 2.0, g, g)
    with pytest.raises(type_check.InvalidType, match="gamma"):
        F.group_normalization(np.zeros((2, 4, 3), np.float32), 2, g[:3], g)


@pytest.mark.parametrize("dx,dp", [(np.float16, np.float32), (np.float32, np.float64)])
def test_group_normalization_mixed_dtypes(dx, dp, device):
    # float32 gamma and beta (GroupNormalization under kusari.mixed16) with a
    # float16 x, as Chainer 7 accepts: y in x's dtype, gradients in their own.
    check_op(
        lambda x, g, b: F.group_normalization(x, 2, g, b),
        lambda x, g, b: _gn_ref(x, 2, g, b),
        [(2, 4, 3), (4,), (4,)],
        input_dtypes=(dx, dp, dp),
        dtype=dx,
        device=device,
        tolerances={"backward": (1e-1, 1e-1), "double_backward": (2e-1, 2e-1)},
    )
