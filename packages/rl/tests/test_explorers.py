import numpy as np
import pytest

from kusari_rl.action_value import DiscreteActionValue
from kusari_rl.explorers import (
    AdditiveGaussian,
    AdditiveOU,
    Boltzmann,
    ConstantEpsilonGreedy,
    ExponentialDecayEpsilonGreedy,
    Greedy,
    LinearDecayEpsilonGreedy,
)


def _random_fraction(explorer, t, n=4000):
    picks = [explorer.select_action(t, lambda: -1) for _ in range(n)]
    return np.mean(np.asarray(picks) != -1)


def test_linear_decay_schedule():
    ex = LinearDecayEpsilonGreedy(1.0, 0.1, 100, lambda: 7)
    assert ex.compute_epsilon(0) == 1.0
    assert ex.compute_epsilon(50) == pytest.approx(0.55)
    assert ex.compute_epsilon(100) == pytest.approx(0.1)
    assert ex.compute_epsilon(10**6) == pytest.approx(0.1)
    assert _random_fraction(ex, 50) == pytest.approx(0.55, abs=0.04)
    assert ex.epsilon == pytest.approx(0.55)


def test_exponential_decay_schedule():
    ex = ExponentialDecayEpsilonGreedy(1.0, 0.05, 0.9, lambda: 7)
    assert ex.compute_epsilon(2) == pytest.approx(0.81)
    assert ex.compute_epsilon(1000) == pytest.approx(0.05)


def test_constant_and_greedy():
    assert _random_fraction(ConstantEpsilonGreedy(0.25, lambda: 3), 0) == pytest.approx(
        0.25, abs=0.04
    )
    assert Greedy().select_action(0, lambda: 5) == 5
    with pytest.raises(ValueError, match=r"epsilon must be in \[0, 1\]"):
        ConstantEpsilonGreedy(1.5, lambda: 0)


def test_boltzmann_matches_softmax():
    av = DiscreteActionValue(np.array([[0.0, 1.0, 2.0]], dtype=np.float32))
    ex = Boltzmann(T=2.0)
    picks = np.array(
        [ex.select_action(0, lambda: 2, action_value=av) for _ in range(6000)]
    )
    p = np.exp(np.array([0.0, 0.5, 1.0]))
    p /= p.sum()
    np.testing.assert_allclose(np.bincount(picks, minlength=3) / 6000, p, atol=0.02)
    with pytest.raises(ValueError, match="needs action_value"):
        ex.select_action(0, lambda: 0)


def test_additive_gaussian_and_ou():
    ex = AdditiveGaussian(scale=0.5, low=-1.0, high=1.0)
    a = np.stack(
        [ex.select_action(0, lambda: np.zeros(2, np.float32)) for _ in range(3000)]
    )
    assert a.dtype == np.float32 and a.min() >= -1.0 and a.max() <= 1.0
    assert a.std() == pytest.approx(0.5, abs=0.05)
    ou = AdditiveOU(mu=0.0, theta=0.5, sigma=0.0, start_with_mu=False)
    first = ou.select_action(0, lambda: np.zeros(1, np.float32))
    second = ou.select_action(1, lambda: np.zeros(1, np.float32))
    # sigma=0: the state decays towards mu by (1 - theta) per step.
    np.testing.assert_allclose(second, first * 0.5, rtol=1e-5)
