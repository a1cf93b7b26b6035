import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

CASES = [
    ((2, 3, 4), (3, 4, 2), 2),
    ((2, 3), (3, 2), 1),
    ((2, 3), (4,), 0),
    ((2, 3, 4), (4, 2, 3), ([1, 2], [2, 0])),
    ((3, 2), (3, 4), (0, 0)),
]


@pytest.mark.parametrize("sa,sb,axes", CASES)
def test_tensordot(sa, sb, axes, float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        lambda a, b: F.tensordot(a, b, axes),
        lambda a, b: np.tensordot(a, b, axes),
        [sa, sb],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_length_mismatch():
    with pytest.raises(type_check.InvalidType, match="tensordot"):
        F.tensordot(np.zeros((2, 3), np.float32), np.zeros((4, 2), np.float32), 1)


def test_bad_axes():
    a = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="tensordot"):
        F.tensordot(a, a, 3)
    with pytest.raises(ValueError, match="tensordot"):
        F.tensordot(a, a, ([0, 1], [0]))
    with pytest.raises(TypeError, match="tensordot"):
        F.tensordot(a, a, "x")


def test_dtype_mismatch():
    with pytest.raises(type_check.InvalidType, match="tensordot"):
        F.tensordot(np.zeros((2, 3), np.float32), np.zeros((3, 2), np.float64), 1)
