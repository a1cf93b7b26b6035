import sys

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

special = pytest.importorskip("scipy.special")


def _domain(rng, dtype):
    return rng.uniform(0.5, 3, (3, 2)).astype(dtype)


def test_digamma(float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        F.digamma,
        special.digamma,
        [_domain],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_digamma_0dim(device):
    check_op(
        F.digamma,
        special.digamma,
        [lambda rng, dtype: np.asarray((0.5 + 3) / 2, dtype)],
        dtype=np.float64,
        device=device,
    )


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="digamma"):
        F.digamma(np.zeros(3, np.int32))


def test_without_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match="digamma"):
        F.digamma(np.full(3, 0.5, np.float32))
