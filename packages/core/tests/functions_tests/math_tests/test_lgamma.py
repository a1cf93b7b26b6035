import sys

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

special = pytest.importorskip("scipy.special")


def _domain(rng, dtype):
    return rng.uniform(0.5, 3, (3, 2)).astype(dtype)


def test_lgamma(float_dtype, device):
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    check_op(
        F.lgamma,
        special.gammaln,
        [_domain],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_lgamma_0dim(device):
    check_op(
        F.lgamma,
        special.gammaln,
        [lambda rng, dtype: np.asarray((0.5 + 3) / 2, dtype)],
        dtype=np.float64,
        device=device,
    )


def test_int_input():
    with pytest.raises(type_check.InvalidType, match="lgamma"):
        F.lgamma(np.zeros(3, np.int32))


def test_without_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    x = np.linspace(0.1, 0.9, 5)
    np.testing.assert_allclose(F.lgamma(x).array, special.gammaln(x), rtol=1e-12)
