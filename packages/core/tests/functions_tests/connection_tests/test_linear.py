from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op


@pytest.mark.parametrize(
    "x_shape,n_batch_axes", [((4, 3), 1), ((4, 3, 2), 1), ((2, 4, 3), 2)]
)
@pytest.mark.parametrize("nobias", [False, True])
def test_linear(x_shape, n_batch_axes, nobias, float_dtype, device):
    in_size = int(np.prod(x_shape[n_batch_axes:]))

    def ref(x, W, *b):
        y = x.reshape(x_shape[:n_batch_axes] + (in_size,)) @ W.T
        return y + b[0] if b else y

    inputs = [x_shape, (5, in_size)] + ([] if nobias else [(5,)])
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda *a: F.linear(
            *a[:2], a[2] if len(a) > 2 else None, n_batch_axes=n_batch_axes
        ),
        ref,
        inputs,
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_linear_bad_n_batch_axes():
    with pytest.raises(ValueError, match="n_batch_axes must be positive"):
        F.linear(
            np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), n_batch_axes=0
        )
