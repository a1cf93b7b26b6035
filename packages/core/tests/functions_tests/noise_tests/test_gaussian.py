import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.testing import check_op
from kusari.utils import type_check


@pytest.mark.parametrize("shape", [(3, 4), (5,), ()])
def test_gaussian_fixed_eps(shape, float_dtype, device):
    eps_host = np.random.default_rng(0).standard_normal(shape).astype(float_dtype)
    eps = kusari.get_device(device).send(eps_host)
    check_op(
        lambda m, v: F.gaussian(m, v, eps=eps),
        lambda m, v: m + np.exp(v / 2) * eps_host,
        [shape, shape],
        dtype=float_dtype,
        device=device,
    )


def test_gaussian_statistics():
    np.random.seed(0)
    n = 100000
    mean = np.full(n, 2.0, np.float32)
    ln_var = np.full(n, np.log(0.25), np.float32)
    y, eps = F.gaussian(mean, ln_var, return_eps=True)
    assert y.dtype == np.float32 and eps.shape == (n,)
    assert abs(y.array.mean() - 2) < 0.01
    assert abs(y.array.std() - 0.5) < 0.01
    np.testing.assert_allclose(y.array, 2 + 0.5 * eps, rtol=1e-5)


def test_gaussian_samples_in_test_mode_too():
    # Chainer's gaussian does not consult config.train.
    np.random.seed(1)
    m = np.zeros(1000, np.float32)
    with kusari.using_config("train", False):
        y = F.gaussian(m, m)
    assert y.array.std() > 0.5


def test_gaussian_errors():
    m = np.zeros(3, np.float32)
    with pytest.raises(type_check.InvalidType, match="Gaussian"):
        F.gaussian(m, np.zeros(4, np.float32))
    with pytest.raises(type_check.InvalidType):
        F.gaussian(m, np.zeros(3, np.float64))
