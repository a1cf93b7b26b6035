"""A2C's update against Stable-Baselines3's, and its advantage normalisation.

The parity test gives kusari-rl's A2C and SB3's the same weights and the same
rollouts (with terminals and time-limit cuts) and checks that every update
moves every parameter by the same amount: it pins down the loss terms, the
n-step / GAE advantages with truncation bootstrapping, the global gradient
norm clipping and RMSprop with ``eps`` outside the square root. It needs
PyTorch and SB3 (the ``bench`` extra) and is skipped without them.
"""

from __future__ import annotations

import numpy as np
import pytest
from _on_policy_helpers import make_model

import kusari
from kusari_rl.agents import A2C

GAMMA = 0.99
N_ENVS = 8
N_STEPS = 5

# kusari-rl layer -> the SB3 ActorCriticPolicy module holding the same weights.
_LAYERS = {
    "/pi/model/hidden_layers/0": ("mlp_extractor", "policy_net", 0),
    "/pi/model/hidden_layers/1": ("mlp_extractor", "policy_net", 2),
    "/pi/model/output": ("action_net",),
    "/v/model/hidden_layers/0": ("mlp_extractor", "value_net", 0),
    "/v/model/hidden_layers/1": ("mlp_extractor", "value_net", 2),
    "/v/model/output": ("value_net",),
}


def _a2c(lr: float = 7e-4, clip: float | None = 0.5, **kw) -> A2C:
    model = make_model(hidden=64)
    opt = kusari.optimizers.RMSprop(lr=lr, alpha=0.99, eps=1e-5)
    opt.setup(model)
    if clip is not None:
        opt.add_hook(kusari.optimizer_hooks.GradientClipping(clip))
    return A2C(
        model,
        opt,
        gamma=GAMMA,
        num_processes=N_ENVS,
        update_steps=N_STEPS,
        v_loss_coef=0.5,
        average_actor_loss_decay=0.0,
        average_value_decay=0.0,
        average_entropy_decay=0.0,
        **kw,
    )


def _sb3_module(policy, path):
    module = policy
    for part in path:
        module = module[part] if isinstance(part, int) else getattr(module, part)
    return module


def _sb3_twin(agent: A2C, lambd: float, ent_coef: float, normalize: bool):
    """rl-zoo's CartPole A2C in SB3, with ``agent``'s weights copied in."""
    torch = pytest.importorskip("torch")
    sb3 = pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import Logger

    torch.set_num_threads(1)
    venv = make_vec_env("CartPole-v1", n_envs=N_ENVS, seed=0)
    model = sb3.A2C(
        "MlpPolicy",
        venv,
        n_steps=N_STEPS,
        gamma=GAMMA,
        gae_lambda=lambd,
        ent_coef=ent_coef,
        vf_coef=0.5,
        max_grad_norm=0.5,
        learning_rate=7e-4,
        normalize_advantage=normalize,
        seed=0,
        device="cpu",
    )
    model.set_logger(Logger(None, []))
    params = dict(agent.model.namedparams())
    with torch.no_grad():
        for name, path in _LAYERS.items():
            layer = _sb3_module(model.policy, path)
            layer.weight.copy_(torch.from_numpy(params[name + "/W"].array))
            layer.bias.copy_(torch.from_numpy(params[name + "/b"].array))
    return torch, model


@pytest.mark.parametrize(
    "lambd, ent_coef, normalize",
    [(1.0, 0.0, False), (0.9, 0.01, False), (1.0, 0.0, True)],
)
def test_a2c_updates_match_stable_baselines3(lambd, ent_coef, normalize):
    agent = _a2c(
        use_gae=lambd != 1.0,
        tau=lambd,
        entropy_coeff=ent_coef,
        normalize_advantages=normalize,
    )
    torch, sb = _sb3_twin(agent, lambd, ent_coef, normalize)
    policy, buf = sb.policy, sb.rollout_buffer
    rng = np.random.default_rng(1)

    def observations():
        return rng.normal(0.0, 0.5, (N_ENVS, 4)).astype(np.float32)

    obs = observations()
    for _ in range(3):
        before = {k: p.array.copy() for k, p in agent.model.namedparams()}
        before_sb = {
            k: _sb3_module(policy, path).weight.detach().numpy().copy()
            for k, path in _LAYERS.items()
        }
        buf.reset()
        starts = np.zeros(N_ENVS, bool)
        for _ in range(N_STEPS):
            actions = np.asarray(agent.batch_act_and_train(list(obs)))
            reached = observations()
            rewards = rng.uniform(0.0, 2.0, N_ENVS).astype(np.float32)
            done = rng.uniform(size=N_ENVS) < 0.15
            cut = (rng.uniform(size=N_ENVS) < 0.15) & ~done
            with torch.no_grad():
                values, log_prob, _ = policy.evaluate_actions(
                    torch.from_numpy(obs), torch.from_numpy(actions).long()
                )
                # SB3 folds the bootstrap of a time-limit cut into the reward.
                v_reached = policy.predict_values(torch.from_numpy(reached))
                sb_rewards = rewards + GAMMA * v_reached.numpy().ravel() * cut
            buf.add(obs, actions.reshape(-1, 1), sb_rewards, starts, values, log_prob)
            agent.batch_observe_and_train(list(reached), rewards, done, cut)
            starts = done | cut
            obs = np.where(starts[:, None], observations(), reached)
        with torch.no_grad():
            last = policy.predict_values(torch.from_numpy(reached))
        buf.compute_returns_and_advantage(last_values=last, dones=starts)
        sb.train()  # kusari-rl's agent updated inside batch_observe_and_train

        logged = sb.logger.name_to_value
        assert agent.average_actor_loss == pytest.approx(
            logged["train/policy_loss"], rel=1e-4, abs=1e-6
        )
        assert agent.average_value == pytest.approx(
            logged["train/value_loss"], rel=1e-4
        )
        assert agent.average_entropy == pytest.approx(
            -logged["train/entropy_loss"], rel=1e-5
        )
        params = dict(agent.model.namedparams())
        for name, path in _LAYERS.items():
            layer = _sb3_module(policy, path)
            np.testing.assert_allclose(
                params[name + "/W"].grad, layer.weight.grad.numpy(), atol=1e-6
            )
            step = params[name + "/W"].array - before[name + "/W"]
            sb_step = layer.weight.detach().numpy() - before_sb[name]
            np.testing.assert_allclose(step, sb_step, rtol=1e-3, atol=2e-6)
            np.testing.assert_allclose(
                params[name + "/b"].array, layer.bias.detach().numpy(), atol=1e-5
            )


def _one_update_pi_grads(normalize: bool, reward_shift: float) -> list[np.ndarray]:
    """Policy gradients of one update on a fixed rollout (gamma 0, so the
    advantage is ``r - V(s)``) with every reward shifted by ``reward_shift``."""
    kusari_rl_seed = np.random.RandomState(0)
    np.random.seed(0)
    agent = _a2c(clip=None, normalize_advantages=normalize)
    agent.gamma = 0.0
    for _ in range(N_STEPS):
        obs = kusari_rl_seed.normal(0.0, 0.5, (N_ENVS, 4)).astype(np.float32)
        agent.batch_act_and_train(list(obs))
        rewards = kusari_rl_seed.uniform(0.0, 2.0, N_ENVS) + reward_shift
        agent.batch_observe_and_train(
            list(obs), rewards, [False] * N_ENVS, [False] * N_ENVS
        )
    assert agent.optimizer.t == 1
    return [p.grad.copy() for _, p in sorted(agent.model.pi.namedparams())]


def test_a2c_normalized_advantages_ignore_a_reward_offset():
    # Shifting every advantage by a constant leaves standardised advantages,
    # and so the policy gradient, unchanged; raw advantages change it.
    base = _one_update_pi_grads(True, 0.0)
    for a, b in zip(base, _one_update_pi_grads(True, 5.0), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-7)
    raw = _one_update_pi_grads(False, 0.0)
    raw_shifted = _one_update_pi_grads(False, 5.0)
    assert not all(
        np.allclose(a, b, rtol=1e-3) for a, b in zip(raw, raw_shifted, strict=True)
    )
