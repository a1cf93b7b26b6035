import math

import numpy as np
import pytest

import kusari.functions as F
from kusari.testing import check_op


def _red(loss, reduce):
    if reduce == "no":
        return loss
    return np.asarray(loss.sum() if reduce == "sum" else loss.mean())


@pytest.mark.parametrize("reduce", ["sum", "mean", "no"])
def test_gaussian_kl_divergence(reduce, float_dtype, device):
    def ref(mean, ln_var):
        return _red(0.5 * (mean**2 + np.exp(ln_var) - ln_var - 1), reduce)

    check_op(
        lambda m, v: F.gaussian_kl_divergence(m, v, reduce=reduce),
        ref,
        [(3, 2), (3, 2)],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize("reduce", ["sum", "mean", "no"])
def test_bernoulli_nll(reduce, float_dtype, device):
    def ref(x, y):
        return _red(np.logaddexp(0, y) - x * y, reduce)

    def obs(rng, dtype):
        return rng.uniform(0, 1, (3, 2)).astype(dtype)

    check_op(
        lambda x, y: F.bernoulli_nll(x, y, reduce=reduce),
        ref,
        [obs, (3, 2)],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize("reduce", ["sum", "mean", "no"])
def test_gaussian_nll(reduce, float_dtype, device):
    def ref(x, mean, ln_var):
        return _red(
            0.5 * (ln_var + math.log(2 * math.pi))
            + 0.5 * (x - mean) ** 2 * np.exp(-ln_var),
            reduce,
        )

    check_op(
        lambda x, m, v: F.gaussian_nll(x, m, v, reduce=reduce),
        ref,
        [(3, 2), (3, 2), (3, 2)],
        dtype=float_dtype,
        device=device,
    )


@pytest.mark.parametrize(
    "fn, nargs",
    [(F.gaussian_kl_divergence, 2), (F.bernoulli_nll, 2), (F.gaussian_nll, 3)],
)
def test_bad_reduce(fn, nargs):
    args = [np.zeros(2, np.float32)] * nargs
    with pytest.raises(ValueError, match="'sum', 'mean' and 'no' are valid"):
        fn(*args, reduce="average")


def test_bernoulli_nll_large_logits_stable():
    y = F.bernoulli_nll(
        np.array([1.0, 0.0], np.float32), np.array([100.0, -100.0], np.float32)
    )
    assert float(y.array) == pytest.approx(0.0, abs=1e-6)
