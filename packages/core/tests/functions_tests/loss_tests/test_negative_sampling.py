import numpy as np
import pytest

import kusari.functions as F
from kusari import Variable, testing
from kusari.testing import check_op
from kusari.utils import type_check
from kusari.utils.walker_alias import WalkerAlias

N, D, V, S = 4, 3, 5, 2
FIXED = np.array([[0, 3, 4], [0, 1, 1], [0, 2, 0], [0, 4, 2]], np.int32)


def _sampler(shape):
    assert shape == (N, S + 1)
    return FIXED.copy()


def _labels(rng, dtype):
    return np.array([1, -1, 3, 0], np.int32)


def _ref(x, t, W, reduce):
    samples = FIXED.copy()
    samples[:, 0] = t
    loss = np.zeros(N)
    for i in range(N):
        if t[i] == -1:
            continue
        f = W[samples[i]] @ x[i]
        f[0] = -f[0]
        loss[i] = np.logaddexp(0, f).sum()
    return np.asarray(loss.sum()) if reduce == "sum" else loss


@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_negative_sampling(reduce, float_dtype, device):
    check_op(
        lambda x, t, W: F.negative_sampling(x, t, W, _sampler, S, reduce=reduce),
        lambda x, t, W: _ref(x, t, W, reduce),
        [(N, D), _labels, (V, D)],
        dtype=float_dtype,
        device=device,
    )


def test_negative_sampling_return_samples():
    x = np.ones((N, D), np.float32)
    W = np.ones((V, D), np.float32)
    t = np.array([1, 2, 3, 4], np.int32)
    loss, samples = F.negative_sampling(x, t, W, _sampler, S, return_samples=True)
    assert isinstance(loss, Variable)
    assert samples.shape == (N, S + 1)
    assert samples[:, 0].tolist() == t.tolist()
    assert samples[:, 1:].tolist() == FIXED[:, 1:].tolist()


def test_negative_sampling_with_walker_alias():
    sampler = WalkerAlias([1, 2, 3, 4, 5])
    x = Variable(np.ones((N, D), np.float32))
    W = Variable(np.full((V, D), 0.1, np.float32))
    t = np.array([0, 1, 2, 3], np.int32)
    loss = F.negative_sampling(x, t, W, sampler.sample, 3)
    loss.backward()
    assert loss.shape == ()
    assert x.grad.shape == (N, D) and W.grad.shape == (V, D)


def test_negative_sampling_unexpected_kwarg():
    a = np.zeros((N, D), np.float32)
    with pytest.raises(TypeError, match="unexpected"):
        F.negative_sampling(
            a, np.zeros(N, np.int32), np.zeros((V, D), np.float32), _sampler, S, foo=1
        )


def test_negative_sampling_bad_reduce():
    a = np.zeros((N, D), np.float32)
    with pytest.raises(ValueError, match="'sum' and 'no'"):
        F.negative_sampling(
            a,
            np.zeros(N, np.int32),
            np.zeros((V, D), np.float32),
            _sampler,
            S,
            reduce="mean",
        )


def test_negative_sampling_bad_types():
    a = np.zeros((N, D), np.float32)
    with pytest.raises(type_check.InvalidType, match="NegativeSampling"):
        F.negative_sampling(
            a, np.zeros(N + 1, np.int32), np.zeros((V, D), np.float32), _sampler, S
        )
    with pytest.raises(type_check.InvalidType):
        F.negative_sampling(
            a, np.zeros(N, np.int32), np.zeros((V, D + 1), np.float32), _sampler, S
        )


@testing.fix_random()
def test_walker_alias_distribution():
    probs = np.array([0.1, 0.0, 0.5, 0.4])
    sampler = WalkerAlias(probs * 3)  # unnormalised weights are fine
    s = sampler.sample((20000,))
    assert s.dtype == np.int32 and s.shape == (20000,)
    freq = np.bincount(s, minlength=4) / s.size
    np.testing.assert_allclose(freq, probs, atol=0.02)
    assert freq[1] == 0


@testing.fix_random()
def test_walker_alias_shape_and_tables():
    sampler = WalkerAlias([1, 1, 2])
    assert sampler.sample((2, 3)).shape == (2, 3)
    assert sampler.threshold.dtype == np.float32
    assert sampler.values.dtype == np.int32 and sampler.values.shape == (6,)
    assert not sampler.use_gpu
    assert sampler.to_device("@numpy") is sampler
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
        assert sampler.to_cpu() is sampler


def test_walker_alias_single_outcome():
    assert WalkerAlias([3.0]).sample((5,)).tolist() == [0] * 5


@pytest.mark.parametrize("probs", [[], [-1, 2], [0, 0], [np.inf, 1]])
def test_walker_alias_bad_probs(probs):
    with pytest.raises(ValueError, match="WalkerAlias"):
        WalkerAlias(probs)
