import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


def _inside(rng, dtype):  # keep away from +-1 where arcsin/arccos blow up
    return rng.uniform(-0.8, 0.8, (3, 2)).astype(dtype)


@pytest.mark.parametrize("shape", [(3, 2), ()])
@pytest.mark.parametrize(
    "fn,ref", [(F.sin, np.sin), (F.cos, np.cos), (F.tan, np.tan), (F.arctan, np.arctan)]
)
def test_unary(fn, ref, shape, float_dtype, device):
    check_op(fn, ref, [shape], dtype=float_dtype, device=device)


@pytest.mark.parametrize("fn,ref", [(F.arcsin, np.arcsin), (F.arccos, np.arccos)])
def test_inverse(fn, ref, float_dtype, device):
    tol = {"double_backward": (2e-1, 2e-1)} if float_dtype == np.float16 else None
    check_op(fn, ref, [_inside], dtype=float_dtype, device=device, tolerances=tol)


@pytest.mark.parametrize("s1,s2", [((3, 2), (3, 2)), ((3, 2), (2,)), ((), ())])
def test_arctan2(s1, s2, float_dtype, device):
    check_op(F.arctan2, np.arctan2, [s1, s2], dtype=float_dtype, device=device)


@pytest.mark.parametrize("fn", [F.sin, F.cos, F.tan, F.arcsin, F.arccos, F.arctan])
def test_int_input_is_rejected(fn):
    with pytest.raises(type_check.InvalidType, match=fn.__name__):
        fn(np.zeros(3, np.int32))


def test_arctan2_dtype_mismatch():
    with pytest.raises(type_check.InvalidType, match="arctan2"):
        F.arctan2(np.zeros(3, np.float32), np.zeros(3, np.float64))


def test_arctan2_bad_shapes():
    with pytest.raises(type_check.InvalidType):
        F.arctan2(np.zeros(3, np.float32), np.zeros(4, np.float32))
