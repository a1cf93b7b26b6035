"""Policies and V-functions: shapes, bounds, heads, gradients, bad spaces."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari_rl import distribution, policies, v_functions


@pytest.fixture(autouse=True)
def _seed() -> None:
    np.random.seed(0)


def _x(b: int = 5, n: int = 4) -> np.ndarray:
    return np.random.default_rng(1).normal(size=(b, n)).astype(np.float32)


def test_fc_softmax_policy_distribution_and_gradient():
    pi = policies.FCSoftmaxPolicy(4, 3, n_hidden_layers=2, n_hidden_channels=8)
    d = pi(_x())
    assert isinstance(d, distribution.SoftmaxDistribution)
    np.testing.assert_allclose(d.all_prob.array.sum(1), 1.0, rtol=1e-6)
    F.sum(d.log_prob(np.zeros(5, np.int32))).backward()
    assert all(p.grad is not None for p in pi.params())


def test_fc_softmax_policy_accepts_a_discrete_space():
    pi = policies.FCSoftmaxPolicy(4, gym.spaces.Discrete(6))
    assert pi(_x()).all_prob.shape == (5, 6)


@pytest.mark.parametrize(
    "make",
    [
        lambda s: policies.FCSoftmaxPolicy(4, s),
    ],
)
def test_softmax_policy_rejects_box_space_naming_the_fix(make):
    with pytest.raises(
        TypeError, match=r"FCSoftmaxPolicy needs a Discrete.*Box.*Gaussian"
    ):
        make(gym.spaces.Box(-1, 1, (2,)))


@pytest.mark.parametrize(
    "cls",
    [
        policies.FCGaussianPolicy,
        policies.FCGaussianPolicyWithStateIndependentCovariance,
    ],
)
def test_gaussian_policies_reject_discrete_space_naming_the_fix(cls):
    with pytest.raises(
        TypeError, match=rf"{cls.__name__} needs a 1-D Box.*Discrete.*Softmax"
    ):
        cls(4, gym.spaces.Discrete(3))


def test_gaussian_policy_rejects_bad_var_type():
    with pytest.raises(ValueError, match="var_type must be 'spherical' or 'diagonal'"):
        policies.FCGaussianPolicy(4, 2, var_type="full")


@pytest.mark.parametrize("var_type,var_dim", [("spherical", 1), ("diagonal", 3)])
def test_state_independent_covariance_policy(var_type, var_dim):
    pi = policies.FCGaussianPolicyWithStateIndependentCovariance(
        4,
        3,
        n_hidden_layers=1,
        n_hidden_channels=8,
        var_type=var_type,
        var_param_init=np.log(np.e - 1.0),  # softplus -> variance 1
    )
    d = pi(_x())
    assert isinstance(d, distribution.GaussianDistribution)
    assert d.mean.shape == (5, 3)
    np.testing.assert_allclose(d.var.array, 1.0, rtol=1e-5)
    assert pi.head.var_param.shape == (var_dim,)
    F.sum(d.log_prob(np.zeros((5, 3), np.float32))).backward()
    assert pi.head.var_param.grad is not None


def test_bound_mean_keeps_mean_inside_the_box_space():
    space = gym.spaces.Box(
        np.array([-1.0, 0.0], np.float32), np.array([1.0, 5.0], np.float32)
    )
    pi = policies.FCGaussianPolicyWithStateIndependentCovariance(
        4, space, n_hidden_layers=1, n_hidden_channels=8, bound_mean=True
    )
    m = pi(_x(200) * 50).mean.array
    assert np.all(m >= space.low - 1e-6) and np.all(m <= space.high + 1e-6)


def test_bound_mean_without_bounds_is_refused():
    with pytest.raises(ValueError, match="bound_mean=True needs min_action"):
        policies.FCGaussianPolicy(4, 2, bound_mean=True)


@pytest.mark.parametrize("var_type", ["spherical", "diagonal"])
def test_fc_gaussian_policy_min_var(var_type):
    pi = policies.FCGaussianPolicy(4, 2, 1, 8, var_type=var_type, min_var=0.5)
    d = pi(_x())
    assert d.var.shape == (5, 2)
    assert np.all(d.var.array >= 0.5)


def test_gaussian_heads():
    x = _x(3, 4)
    d = policies.GaussianHeadWithDiagonalCovariance()(x)
    np.testing.assert_allclose(d.mean.array, x[:, :2])
    np.testing.assert_allclose(d.var.array, np.log1p(np.exp(x[:, 2:])), rtol=1e-5)
    d = policies.GaussianHeadWithFixedCovariance(0.3)(x)
    np.testing.assert_allclose(d.var.array, 0.3)
    with pytest.raises(ValueError, match=r"2 \* action_size"):
        policies.GaussianHeadWithDiagonalCovariance()(np.zeros((2, 3), np.float32))


def test_squashed_head_clips_log_scale():
    x = np.array([[0.5, -100.0], [0.0, 100.0]], np.float32)
    d = policies.SquashedDiagonalGaussianHead()(x)
    assert isinstance(d, distribution.SquashedGaussianDistribution)
    np.testing.assert_allclose(
        d.var.array[:, 0], np.exp(2 * np.array([-20.0, 2.0])), rtol=1e-5
    )
    np.testing.assert_allclose(
        d.most_probable.array[:, 0], np.tanh([0.5, 0.0]), rtol=1e-6
    )


def test_fc_deterministic_policy_bounds_actions_and_passes_gradient():
    space = gym.spaces.Box(-2.0, 2.0, (3,), np.float32)
    pi = policies.FCDeterministicPolicy(4, 1, 8, space)
    d = pi(_x(100) * 30)
    assert isinstance(d, distribution.ContinuousDeterministicDistribution)
    a = d.sample()
    assert np.all(np.abs(a.array) <= 2.0)
    F.sum(a).backward()
    assert pi.model.output.W.grad is not None


def test_fc_deterministic_policy_unbounded_and_missing_bounds():
    pi = policies.FCDeterministicPolicy(4, 0, 8, 2, bound_action=False)
    assert pi(_x()).most_probable.shape == (5, 2)
    with pytest.raises(ValueError, match="bound_action=True needs min_action"):
        policies.FCDeterministicPolicy(4, 0, 8, 2)


def test_mellowmax_and_wrapper_policies():
    import kusari.links as L

    lin = L.Linear(4, 3)
    d = policies.MellowmaxPolicy(lin, omega=1.0)(_x())
    np.testing.assert_allclose(d.all_prob.array.sum(1), 1.0, rtol=1e-5)
    d = policies.SoftmaxPolicy(L.Linear(4, 3), beta=2.0, min_prob=0.01)(_x())
    assert d.all_prob.array.min() >= 0.01 - 1e-7
    d = policies.ContinuousDeterministicPolicy(
        L.Linear(4, 2), action_filter=lambda h: F.tanh(h)
    )(_x())
    assert np.all(np.abs(d.sample().array) < 1)


def test_v_functions():
    v = v_functions.FCVFunction(4, n_hidden_layers=2, n_hidden_channels=8)
    y = v(_x())
    assert y.shape == (5, 1)
    F.sum(y).backward()
    assert all(p.grad is not None for p in v.params())
    import kusari.links as L

    lin = L.Linear(4, 1)
    s = v_functions.SingleModelStateValueFunction(lin)
    x = _x()
    np.testing.assert_allclose(s(x).array, lin(x).array)
    with pytest.raises(ValueError, match="n_hidden_channels is required"):
        v_functions.FCVFunction(4, n_hidden_layers=1)


def test_policy_save_load_roundtrip(tmp_path):
    pi = policies.FCGaussianPolicyWithStateIndependentCovariance(4, 2, 1, 8)
    pi.head.var_param.array[...] = 0.7
    path = tmp_path / "pi.npz"
    kusari.serializers.save_npz(str(path), pi)
    pi2 = policies.FCGaussianPolicyWithStateIndependentCovariance(4, 2, 1, 8)
    kusari.serializers.load_npz(str(path), pi2)
    x = _x()
    np.testing.assert_allclose(pi2(x).mean.array, pi(x).mean.array)
    np.testing.assert_allclose(pi2.head.var_param.array, 0.7)


def test_fc_bn_deterministic_policy():
    space = gym.spaces.Box(-1.0, 1.0, (2,), np.float32)
    pi = policies.FCBNDeterministicPolicy(4, 2, 8, space)
    a = pi(_x(16) * 10).sample()
    assert a.shape == (16, 2) and np.all(np.abs(a.array) <= 1.0)
    F.sum(a).backward()
    assert pi.model.output.W.grad is not None
