"""The kusari-rl side of the benchmarks builds the rl-zoo configurations."""

from __future__ import annotations

import numpy as np
import pytest


def _linear_shapes(link):
    return sorted(
        (name, p.shape) for name, p in link.namedparams() if name.endswith("/W")
    )


@pytest.mark.parametrize("algo", ["DQN", "PPO", "A2C", "SAC", "TD3"])
def test_every_factory_trains_and_acts(bench, algo):
    trainer = bench.FACTORIES[algo](0)
    try:
        trainer.train(16)
        obs, _ = (
            trainer.envs[0].reset(seed=1)
            if hasattr(trainer, "envs")
            else trainer.env.reset(seed=1)
        )
        action = trainer.greedy_action(obs)
        space = (
            trainer.envs[0] if hasattr(trainer, "envs") else trainer.env
        ).action_space
        assert space.contains(
            np.asarray(action, dtype=space.dtype).reshape(space.shape)
        )
    finally:
        trainer.close()


def test_network_sizes_are_sb3s(bench):
    # SB3's SAC default (256-256) and rl-zoo's TD3 (400-300) and DQN (256-256).
    sac = bench.make_sac(0)
    shapes = [s for _, s in _linear_shapes(sac.agent.q_func1)]
    assert sorted(shapes) == sorted([(256, 4), (256, 256), (1, 256)])
    td3 = bench.make_td3(0)
    shapes = [s for _, s in _linear_shapes(td3.agent.policy)]
    assert sorted(shapes) == sorted([(400, 3), (300, 400), (1, 300)])
    dqn = bench.make_dqn(0)
    shapes = [s for _, s in _linear_shapes(dqn.agent.model)]
    assert sorted(shapes) == sorted([(256, 4), (256, 256), (2, 256)])
    for t in (sac, td3, dqn):
        t.close()


def test_dqn_follows_the_zoo_schedule(bench):
    trainer = bench.make_dqn(0, total_steps=50_000)
    agent = trainer.agent
    try:
        # Epsilon reaches 0.04 after 16% of the budget; 128 updates per 256 steps.
        assert agent.explorer.compute_epsilon(8000) == pytest.approx(0.04)
        assert agent.explorer.compute_epsilon(4000) == pytest.approx(0.52)
        assert agent.replay_updater.update_interval == 256
        assert agent.replay_updater.n_times_update == 128
        assert agent.target_update_interval == 10
    finally:
        trainer.close()


def test_ppo_decays_learning_rate_and_clip_range_linearly(bench):
    trainer = bench.make_ppo(0, total_steps=64)
    try:
        trainer.train(32)
        # After 32 of 64 steps the last step ran at 1 - 24/64 of the start.
        assert trainer.agent.optimizer.alpha == pytest.approx(1e-3 * (1 - 24 / 64))
        assert trainer.agent.clip_eps == pytest.approx(0.2 * (1 - 24 / 64))
        trainer.train(64)
        assert trainer.agent.optimizer.alpha == 0.0
        assert trainer.agent.clip_eps == 0.0
    finally:
        trainer.close()


def test_a2c_learning_rate_decays_to_zero_over_its_horizon(bench):
    # 8 envs x 5 steps per update: the rate is set before every 40 steps.
    trainer = bench.make_a2c(0, lr=1e-3, lr_decay_steps=80, use_gae=True, lambd=0.9)
    try:
        assert trainer.agent.use_gae and trainer.agent.tau == 0.9
        trainer.train(40)
        assert trainer.agent.optimizer.lr == pytest.approx(1e-3)
        trainer.train(40)
        assert trainer.agent.optimizer.lr == pytest.approx(1e-3 * (1 - 40 / 80))
        trainer.train(40)
        assert trainer.agent.optimizer.lr == 0.0
        # The wrapper still exposes the envs of the trainer it wraps.
        assert len(trainer.envs) == 8
    finally:
        trainer.close()


def test_dqn_options_double_and_decay(bench):
    trainer = bench.make_dqn(0, double=True, lr_decay_steps=512)
    try:
        assert type(trainer.agent).__name__ == "DoubleDQN"
        trainer.train(512)
        # Two 256-step rollouts: the second ran at half the starting rate.
        assert trainer.agent.optimizer.alpha == pytest.approx(2.3e-3 / 2)
        assert trainer.env.spec.id == "CartPole-v1"
    finally:
        trainer.close()


def test_sac_torch_init_is_uniform_within_one_over_sqrt_fan_in(bench):
    trainer = bench.make_sac(0, torch_init=True)
    try:
        for link in (trainer.agent.policy, trainer.agent.q_func1):
            for layer in link.links():
                if not isinstance(layer, bench.kusari.links.Linear):
                    continue
                bound = 1 / np.sqrt(layer.W.shape[1])
                for p in (layer.W.array, layer.b.array):
                    assert np.abs(p).max() <= bound
                    if p.size >= 16:
                        # Spread over the range (biases too, not zeros).
                        assert np.abs(p).max() > 0.5 * bound
    finally:
        trainer.close()


def test_factories_use_the_printed_settings(bench):
    for algo, factory in bench.FACTORIES.items():
        assert factory.keywords == bench.SETTINGS[algo]
        assert f"kusari-rl {algo} settings" in bench.settings_note([algo])


def test_ppo_normalize_obs_standardises_what_the_agent_sees(bench):
    trainer = bench.make_ppo(0, normalize_obs=True, n_steps=4, epochs=1)
    agent = trainer.agent
    try:
        norm = agent.obs_normalizer
        assert isinstance(norm, bench.kusari_rl.links.EmpiricalNormalization)
        assert norm.clip_threshold == 5.0
        assert agent.update_interval == 4 * 8
        # One rollout of 8 envs x 4 steps updates the running statistics.
        trainer.train(32)
        assert agent.n_updates == 1
        assert float(norm.count) == 32
        assert np.abs(norm.mean).max() > 0
        plain = bench.make_ppo(0)
        assert plain.agent.obs_normalizer is None
        plain.close()
    finally:
        trainer.close()


def test_dqn_stability_options_reach_the_agent(bench):
    trainer = bench.make_dqn(
        0,
        double=True,
        soft_update_tau=0.005,
        minibatch_size=128,
        n_step=3,
        exploration_fraction=0.3,
        eval_average_decay=0.999,
        normalize_obs=True,
    )
    agent = trainer.agent
    try:
        assert agent.target_update_method == "soft"
        assert agent.soft_update_tau == 0.005
        assert agent.minibatch_size == 128
        assert agent.replay_buffer.num_steps == 3
        assert agent.explorer.compute_epsilon(15_000) == pytest.approx(0.04)
        assert agent.eval_average_decay == 0.999
        assert agent.obs_normalizer.clip_threshold == 5.0
        plain = bench.make_dqn(0)
        assert plain.agent.target_update_method == "hard"
        assert plain.agent.obs_normalizer is None
        plain.close()
    finally:
        trainer.close()


def test_a2c_normalize_obs_and_entropy_reach_the_agent(bench):
    trainer = bench.make_a2c(0, normalize_obs=True, entropy_coeff=0.005, gamma=0.995)
    try:
        assert trainer.agent.obs_normalizer.clip_threshold == 5.0
        assert trainer.agent.entropy_coeff == 0.005
        assert trainer.agent.gamma == 0.995
    finally:
        trainer.close()


@pytest.mark.parametrize("algo", ["DQN", "PPO", "A2C"])
def test_eval_average_decay_reaches_the_agent(bench, algo):
    trainer = bench._MAKERS[algo](0, eval_average_decay=0.95)
    try:
        assert trainer.agent.eval_average_decay == 0.95
        assert trainer.agent.eval_average_model is not None
    finally:
        trainer.close()


def test_sac_options_reach_the_agent(bench):
    trainer = bench.make_sac(
        0,
        gamma=0.98,
        soft_update_tau=0.01,
        policy_lr=3e-4,
        initial_temperature=0.5,
    )
    agent = trainer.agent
    try:
        assert agent.gamma == 0.98
        assert agent.soft_update_tau == 0.01
        assert agent.policy_optimizer.alpha == 3e-4
        assert agent.q_func1_optimizer.alpha == 1e-3
        assert agent.temperature == pytest.approx(0.5)
        plain = bench.make_sac(0)
        assert plain.agent.soft_update_tau == 5e-3
        assert plain.agent.policy_optimizer.alpha == 1e-3
        plain.close()
    finally:
        trainer.close()


def test_benchmark_sac_moves_its_target_critics_with_tau_0_02(bench):
    # The chosen setting: SB3's initialisation and tau 0.02 (rl-zoo: 0.005).
    trainer = bench.FACTORIES["SAC"](0)
    try:
        assert trainer.agent.soft_update_tau == 0.02
        assert trainer.agent.gamma == 0.99
    finally:
        trainer.close()


def test_dqn_gamma_replay_start_and_final_epsilon_reach_the_agent(bench):
    trainer = bench.make_dqn(0, gamma=0.999, replay_start_size=5000, final_epsilon=0.1)
    try:
        assert trainer.agent.gamma == 0.999
        # Epsilon reaches its floor after 16% of the 50k-step budget.
        assert trainer.agent.explorer.compute_epsilon(8000) == pytest.approx(0.1)
        assert trainer.agent.replay_updater.replay_start_size == 5000
        plain = bench.make_dqn(0)
        assert plain.agent.gamma == 0.99
        assert plain.agent.replay_updater.replay_start_size == 1000
        plain.close()
    finally:
        trainer.close()
