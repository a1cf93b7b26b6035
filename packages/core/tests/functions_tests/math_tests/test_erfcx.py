import sys

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

special = pytest.importorskip("scipy.special")


def _domain(rng, dtype):
    return rng.uniform(-1, 2, (3, 2)).astype(dtype)


def test_erfcx(float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        F.erfcx,
        special.erfcx,
        [_domain],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_erfcx_0dim(device):
    check_op(
        F.erfcx,
        special.erfcx,
        [lambda rng, dtype: np.asarray((-1 + 2) / 2, dtype)],
        dtype=np.float64,
        device=device,
    )


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="erfcx"):
        F.erfcx(np.zeros(3, np.int32))


def test_without_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match="erfcx"):
        F.erfcx(np.full(3, 0.5, np.float32))
