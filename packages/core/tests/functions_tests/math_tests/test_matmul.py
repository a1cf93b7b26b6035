from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _t(a):
    return np.swapaxes(a, -1, -2) if a.ndim >= 2 else a


@pytest.mark.parametrize(
    "sa,sb",
    [
        ((2, 3), (3, 4)),
        ((3,), (3, 4)),
        ((2, 3), (3,)),
        ((3,), (3,)),
        ((5, 2, 3), (3, 4)),
        ((2, 3), (5, 3, 4)),
        ((5, 2, 3), (5, 3, 4)),
        ((5, 1, 2, 3), (4, 3, 2)),
    ],
)
@pytest.mark.parametrize(
    "transa,transb", [(False, False), (True, False), (False, True), (True, True)]
)
def test_matmul(sa, sb, transa, transb, float_dtype, device):
    if transa and len(sa) >= 2:
        sa = sa[:-2] + (sa[-1], sa[-2])
    if transb and len(sb) >= 2:
        sb = sb[:-2] + (sb[-1], sb[-2])

    def ref(a, b):
        return np.matmul(_t(a) if transa else a, _t(b) if transb else b)

    tol = {"forward": (5e-3, 5e-3)} if float_dtype == np.float16 else None
    check_op(
        lambda a, b: F.matmul(a, b, transa=transa, transb=transb),
        ref,
        [sa, sb],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_matmul_shape_error():
    with pytest.raises(type_check.InvalidType, match="contracted axes"):
        F.matmul(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))
