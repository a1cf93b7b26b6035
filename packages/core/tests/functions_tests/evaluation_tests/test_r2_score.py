import numpy as np
import pytest

import kusari.functions as F
from kusari import backend
from kusari.utils import type_check


def _r2(pred, true):
    ss_res = ((pred - true) ** 2).sum(axis=0)
    ss_tot = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
    return np.where(ss_tot == 0, 0.0, 1 - ss_res / np.where(ss_tot == 0, 1, ss_tot))


@pytest.mark.parametrize("shape", [(10,), (10, 3)])
@pytest.mark.parametrize("multioutput", ["uniform_average", "raw_values"])
def test_r2_score(shape, multioutput, float_dtype, device):
    rng = np.random.default_rng(0)
    true = rng.uniform(-1, 1, shape).astype(float_dtype)
    pred = (true + rng.uniform(-0.3, 0.3, shape)).astype(float_dtype)
    dev = backend.get_device(device)
    out = F.r2_score(dev.send(pred), dev.send(true), multioutput=multioutput)
    expected = _r2(pred.astype(np.float64), true.astype(np.float64))
    if multioutput == "uniform_average":
        expected = expected.mean()
    assert out.dtype == float_dtype and out.shape == np.shape(expected)
    tol = 2e-2 if float_dtype == np.float16 else 1e-5
    np.testing.assert_allclose(
        backend.CpuDevice().send(out.array), expected, rtol=tol, atol=tol
    )


def test_r2_score_constant_truth():
    true = np.ones((4, 2), np.float32)
    out = F.r2_score(true + 1, true, multioutput="raw_values")
    np.testing.assert_array_equal(out.array, [0.0, 0.0])


def test_r2_score_bad_arguments():
    x = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match="multioutput"):
        F.r2_score(x, x, multioutput="variance_weighted")
    with pytest.raises(NotImplementedError, match="sample_weight"):
        F.r2_score(x, x, sample_weight=np.ones(3))
    with pytest.raises(type_check.InvalidType, match="shape"):
        F.r2_score(x, np.zeros(4, np.float32))
