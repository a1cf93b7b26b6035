"""TRPO: conjugate gradient, the trust-region step, save/load, learning."""

from __future__ import annotations

import numpy as np
import pytest
from _on_policy_helpers import make_model, run_vector

import kusari
import kusari.functions as F
from kusari_rl import policies, v_functions
from kusari_rl.agents import TRPO
from kusari_rl.agents.trpo import conjugate_gradient


@pytest.fixture(autouse=True)
def _seed() -> None:
    np.random.seed(0)


def test_conjugate_gradient_solves_an_spd_system():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(6, 6))
    A = m @ m.T + 6 * np.eye(6)
    b = rng.normal(size=6)
    x = conjugate_gradient(lambda v: A @ v, b, max_iter=6)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-8, atol=1e-10)
    # Fewer iterations than the dimension give an approximation, not garbage.
    x3 = conjugate_gradient(lambda v: A @ v, b, max_iter=3)
    assert np.linalg.norm(A @ x3 - b) < np.linalg.norm(b)


def test_conjugate_gradient_stops_on_zero_rhs():
    calls = []
    x = conjugate_gradient(lambda v: calls.append(v) or v, np.zeros(3))
    np.testing.assert_array_equal(x, np.zeros(3))
    assert not calls


def _agent(obs: int = 4, n_actions: int = 2, continuous: bool = False, **kw) -> TRPO:
    if continuous:
        pi = policies.FCGaussianPolicyWithStateIndependentCovariance(
            obs, n_actions, 1, 16
        )
    else:
        pi = policies.FCSoftmaxPolicy(obs, n_actions, 1, 16)
    vf = v_functions.FCVFunction(obs, 1, 16)
    vf_opt = kusari.optimizers.Adam(1e-3)
    vf_opt.setup(vf)
    return TRPO(pi, vf, vf_opt, **kw)


@pytest.mark.parametrize("continuous", [False, True])
def test_policy_step_improves_the_surrogate_within_the_kl_radius(continuous):
    agent = _agent(continuous=continuous, max_kl=0.01, entropy_coef=0.0)
    rng = np.random.default_rng(1)
    states = rng.normal(size=(128, 4)).astype(np.float32)
    with kusari.no_backprop_mode():
        old = agent.policy(states)
        actions = old.sample().array
        old = old.copy()
    advs = rng.normal(size=128).astype(np.float32)
    log_probs_old = old.log_prob(actions).array
    gain_before = float(agent._gain(old, actions, log_probs_old, advs).array)
    agent._update_policy(states, actions, advs)
    with kusari.no_backprop_mode():
        new = agent.policy(states)
        kl = float(F.mean(old.kl(new)).array)
        gain_after = float(agent._gain(new, actions, log_probs_old, advs).array)
    assert agent.n_policy_updates == 1
    assert 0 < kl <= 0.01 * 1.0001
    assert gain_after > gain_before
    assert agent.policy_step_size_record[-1] > 0


def test_fisher_vector_product_matches_finite_difference_of_kl_gradient():
    # For a softmax policy, F v = d/de [grad KL(old || theta + e v)] at e = 0.
    # float64 and a smooth network so that the finite difference is exact enough
    pi = policies.FCSoftmaxPolicy(4, 2, 1, 8, nonlinearity=F.tanh)
    for p in pi.params():
        p.array = p.array.astype(np.float64)
    vf = v_functions.FCVFunction(4)
    vf_opt = kusari.optimizers.Adam()
    vf_opt.setup(vf)
    agent = TRPO(pi, vf, vf_opt)
    states = np.random.default_rng(2).normal(size=(16, 4))
    params = list(agent.policy.params())
    with kusari.no_backprop_mode():
        old = agent.policy(states).copy()
    base = [p.array.copy() for p in params]
    v = [np.random.default_rng(3).normal(size=p.shape) for p in params]

    def kl_grad(eps: float) -> np.ndarray:
        for p, b0, vi in zip(params, base, v):
            p.array[...] = b0 + eps * vi
        kl = F.mean(old.kl(agent.policy(states)))
        gs = kusari.grad([kl], params)
        return np.concatenate([g.array.ravel() for g in gs])

    h = 1e-5
    fd = (kl_grad(h) - kl_grad(-h)) / (2 * h)
    for p, b0 in zip(params, base):
        p.array[...] = b0
    kl = F.mean(old.kl(agent.policy(states)))
    gs = kusari.grad([kl], params, enable_double_backprop=True)
    flat = F.concat([F.flatten(g) for g in gs], axis=0)
    vflat = np.concatenate([vi.ravel() for vi in v])
    hv = kusari.grad([F.sum(flat * vflat)], params)
    hv = np.concatenate([g.array.ravel() for g in hv])
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-8)


def test_full_update_fits_value_function_and_records_stats():
    agent = _agent(update_interval=64, vf_batch_size=16, vf_epochs=2)
    run_vector(agent, n_envs=4, steps=64)
    stats = dict(agent.get_statistics())
    assert stats["n_policy_updates"] == 1
    assert stats["n_vf_updates"] == 2 * 4
    assert np.isfinite(stats["average_kl"])


def test_vf_optimizer_must_target_vf():
    pi = policies.FCSoftmaxPolicy(4, 2)
    vf = v_functions.FCVFunction(4)
    opt = kusari.optimizers.Adam()
    opt.setup(pi)
    with pytest.raises(ValueError, match="vf_optimizer must be set up with vf"):
        TRPO(pi, vf, opt)


def test_save_and_load(tmp_path):
    agent = _agent(update_interval=32)
    run_vector(agent, n_envs=2, steps=32)
    agent.save(str(tmp_path))
    other = _agent()
    other.load(str(tmp_path))
    x = np.ones((1, 4), np.float32)
    np.testing.assert_allclose(
        other.policy(x).all_prob.array, agent.policy(x).all_prob.array
    )
    np.testing.assert_allclose(other.vf(x).array, agent.vf(x).array)


@pytest.mark.slow
def test_trpo_solves_cartpole():
    """Bar: mean of the last 20 training episodes >= 195 within 60k steps."""
    model = make_model(hidden=64)
    vf_opt = kusari.optimizers.Adam(1e-3)
    vf_opt.setup(model.v)
    agent = TRPO(
        model.pi,
        model.v,
        vf_opt,
        update_interval=1024,
        max_kl=0.01,
        entropy_coef=0.0,
        lambd=0.97,
    )
    returns = run_vector(agent, n_envs=8, steps=60000)
    assert np.mean(returns[-20:]) >= 195, returns[-20:]
