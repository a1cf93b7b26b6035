import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _well_conditioned(shape):
    def gen(rng, dtype):
        return (rng.uniform(-0.5, 0.5, shape) + 1.5 * np.eye(shape[-1])).astype(dtype)

    return gen


def _tol(dtype):
    if dtype == np.float16:
        return {
            "forward": (2e-2, 2e-2),
            "backward": (1e-1, 1e-1),
            "double_backward": (2e-1, 2e-1),
        }
    return None


@pytest.mark.parametrize("n", [1, 3])
def test_det(n, float_dtype, device):
    check_op(
        F.det,
        np.linalg.det,
        [_well_conditioned((n, n))],
        dtype=float_dtype,
        device=device,
        tolerances=_tol(float_dtype),
    )


def test_batch_det(float_dtype, device):
    check_op(
        F.batch_det,
        np.linalg.det,
        [_well_conditioned((2, 3, 3))],
        dtype=float_dtype,
        device=device,
        tolerances=_tol(float_dtype),
    )


def test_det_is_0dim():
    assert F.det(np.eye(2, dtype=np.float32)).shape == ()


@pytest.mark.parametrize(
    "fn,shape",
    [
        (F.det, (2, 3)),
        (F.det, (2, 2, 2)),
        (F.batch_det, (2, 2)),
        (F.batch_det, (2, 2, 3)),
    ],
)
def test_bad_shapes(fn, shape):
    with pytest.raises(type_check.InvalidType, match=fn.__name__):
        fn(np.zeros(shape, np.float32))
