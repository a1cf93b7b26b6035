import sys

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

special = pytest.importorskip("scipy.special")


def _domain(rng, dtype):
    return rng.uniform(-2, 2, (3, 2)).astype(dtype)


def test_erf(float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        F.erf, special.erf, [_domain], dtype=float_dtype, device=device, tolerances=tol
    )


def test_erf_0dim(device):
    check_op(
        F.erf,
        special.erf,
        [lambda rng, dtype: np.asarray((-2 + 2) / 2, dtype)],
        dtype=np.float64,
        device=device,
    )


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="erf"):
        F.erf(np.zeros(3, np.int32))


def test_without_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    x = np.linspace(0.1, 0.9, 5)
    np.testing.assert_allclose(F.erf(x).array, special.erf(x), rtol=1e-12)
