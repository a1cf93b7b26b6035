import sys

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check

special = pytest.importorskip("scipy.special")


def _q(rng, dtype):
    return rng.uniform(0.5, 2, (3, 2)).astype(dtype)


@pytest.mark.parametrize("xshape", [(3, 2), ()])
def test_zeta(xshape, float_dtype, device):
    x = np.random.default_rng(5).uniform(2, 4, xshape).astype(float_dtype)
    x = kusari.backend.get_device(device).send(x)
    tol = {"forward": (1e-2, 1e-2)} if float_dtype == np.float16 else None
    x_host = kusari.backend.CpuDevice().send(x).astype(np.float64)
    check_op(
        lambda q: F.zeta(x, q),
        lambda q: special.zeta(x_host, q),
        [_q],
        dtype=float_dtype,
        device=device,
        tolerances=tol,
    )


def test_x_must_be_an_array():
    q = np.ones(2, np.float32)
    with pytest.raises(TypeError, match="zeta"):
        F.zeta(kusari.Variable(np.full(2, 2.0, np.float32)), q)
    with pytest.raises(TypeError, match="zeta"):
        F.zeta(2.0, q)


def test_x_is_used_in_the_dtype_of_q():
    y = F.zeta(np.full(2, 2.0, np.float64), np.ones(2, np.float32))
    assert y.dtype == np.float32


def test_int_q():
    with pytest.raises(type_check.InvalidType, match="zeta"):
        F.zeta(np.full(2, 2.0, np.float32), np.ones(2, np.int32))


def test_without_scipy(monkeypatch):
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match="zeta"):
        F.zeta(np.full(2, 2.0, np.float32), np.ones(2, np.float32))
