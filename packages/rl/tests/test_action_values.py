import numpy as np
import pytest

from kusari_rl.action_value import (
    DiscreteActionValue,
    DistributionalDiscreteActionValue,
    QuadraticActionValue,
    QuantileDiscreteActionValue,
)


def test_discrete_action_value():
    q = np.array([[1.0, 3.0, 2.0], [0.5, -1.0, 0.0]], dtype=np.float32)
    av = DiscreteActionValue(q)
    np.testing.assert_array_equal(av.greedy_actions.array, [1, 0])
    np.testing.assert_allclose(av.max.array, [3.0, 0.5])
    np.testing.assert_allclose(av.evaluate_actions(np.array([2, 1])).array, [2.0, -1.0])
    np.testing.assert_allclose(
        av.compute_advantage(np.array([2, 1])).array, [-1.0, -1.5]
    )
    beta = 2.0
    p = np.exp(beta * q) / np.exp(beta * q).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(
        av.compute_expectation(beta).array, (p * q).sum(1), rtol=1e-5
    )
    np.testing.assert_allclose(av[1:].q_values.array, q[1:])
    with pytest.raises(ValueError, match=r"\(batch, n_actions\)"):
        DiscreteActionValue(np.zeros(3, np.float32))


def test_distributional_action_value():
    z = np.array([-1.0, 0.0, 1.0], dtype=np.float32)
    probs = np.array(
        [[[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]]], dtype=np.float32
    )  # q = [0.3, -0.4]
    av = DistributionalDiscreteActionValue(probs, z)
    np.testing.assert_allclose(av.q_values.array, [[0.3, -0.4]], rtol=1e-6)
    np.testing.assert_array_equal(av.greedy_actions.array, [0])
    np.testing.assert_allclose(av.max_as_distribution.array, probs[:, 0])
    np.testing.assert_allclose(
        av.evaluate_actions_as_distribution([1]).array, probs[:, 1]
    )


def test_quantile_action_value():
    quantiles = np.arange(12, dtype=np.float32).reshape(1, 4, 3)  # (B, taus, actions)
    av = QuantileDiscreteActionValue(quantiles)
    np.testing.assert_allclose(av.q_values.array, [[4.5, 5.5, 6.5]])
    np.testing.assert_allclose(
        av.evaluate_actions_as_quantiles([1]).array, [[1, 4, 7, 10]]
    )


def test_quadratic_action_value():
    mu = np.array([[0.5, -0.5]], dtype=np.float32)
    mat = np.array([[[2.0, 0.0], [0.0, 1.0]]], dtype=np.float32)
    v = np.array([[1.0]], dtype=np.float32)
    av = QuadraticActionValue(mu, mat, v)
    a = np.array([[1.5, 0.5]], dtype=np.float32)
    # 1 - 0.5 * (2 * 1 + 1 * 1) = -0.5
    np.testing.assert_allclose(av.evaluate_actions(a).array, [-0.5])
    np.testing.assert_allclose(av.max.array, [1.0])
    clipped = QuadraticActionValue(mu, mat, v, min_action=-0.2, max_action=0.2)
    np.testing.assert_allclose(clipped.greedy_actions.array, [[0.2, -0.2]])
