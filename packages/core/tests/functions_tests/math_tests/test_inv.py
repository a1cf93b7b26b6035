import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _well_conditioned(shape):
    def gen(rng, dtype):
        n = shape[-1]
        return (rng.uniform(-0.5, 0.5, shape) + 2 * np.eye(n)).astype(dtype)

    return gen


def _tol(dtype):
    if dtype == np.float16:
        return {
            "forward": (2e-2, 2e-2),
            "backward": (1e-1, 1e-1),
            "double_backward": (2e-1, 2e-1),
        }
    return None


def test_inv(float_dtype, device):
    check_op(
        F.inv,
        np.linalg.inv,
        [_well_conditioned((3, 3))],
        dtype=float_dtype,
        device=device,
        tolerances=_tol(float_dtype),
    )


def test_batch_inv(float_dtype, device):
    check_op(
        F.batch_inv,
        np.linalg.inv,
        [_well_conditioned((2, 3, 3))],
        dtype=float_dtype,
        device=device,
        tolerances=_tol(float_dtype),
    )


def test_singular():
    with pytest.raises(np.linalg.LinAlgError, match="inv"):
        F.inv(np.zeros((2, 2), np.float32))


@pytest.mark.parametrize(
    "fn,shape",
    [
        (F.inv, (2, 3)),
        (F.inv, (2, 2, 2)),
        (F.batch_inv, (2, 2)),
        (F.batch_inv, (2, 2, 3)),
    ],
)
def test_bad_shapes(fn, shape):
    with pytest.raises(type_check.InvalidType, match=fn.__name__):
        fn(np.zeros(shape, np.float32))
