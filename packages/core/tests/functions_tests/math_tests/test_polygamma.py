import sys

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

special = pytest.importorskip("scipy.special")


def _n(rng, dtype):
    return rng.integers(0, 3, (3, 2)).astype(np.int32)


def _x(rng, dtype):
    return rng.uniform(0.8, 3, (3, 2)).astype(dtype)


def test_polygamma(float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        F.polygamma,
        special.polygamma,
        [_n, _x],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_polygamma_broadcast_n(device):
    check_op(
        F.polygamma,
        special.polygamma,
        [lambda rng, dtype: np.array(1, np.int32), _x],
        dtype=np.float64,
        device=device,
    )


def test_bad_dtypes():
    with pytest.raises(type_check.InvalidType, match="polygamma"):
        F.polygamma(np.zeros(3, np.float32), np.ones(3, np.float32))
    with pytest.raises(type_check.InvalidType, match="polygamma"):
        F.polygamma(np.zeros(3, np.int32), np.ones(3, np.int32))


def test_without_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match="polygamma"):
        F.polygamma(np.zeros(3, np.int32), np.ones(3, np.float32))
