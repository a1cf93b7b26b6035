import math

import numpy as np
import pytest
from _continuous_helpers import FixedPolicy, LinearQ, TinyEnv, adam, batch

import kusari
import kusari.functions as F
import kusari.links as L
from kusari.backends import cuda
from kusari_rl.agents.soft_actor_critic import SoftActorCritic, TemperatureHolder
from kusari_rl.policies import SquashedDiagonalGaussianHead
from kusari_rl.replay_buffer import batch_experiences
from kusari_rl.replay_buffers import ReplayBuffer


def make_sac(policy=None, **kwargs):
    if policy is None:
        policy = FixedPolicy([0.5], -1.25)
    q1 = LinearQ(2, 1, w=[1.0, 0.0, 2.0], b=0.5)
    q2 = LinearQ(2, 1, w=[0.0, 1.0, -1.0], b=0.0)
    opts = {"replay_start_size": 2, "minibatch_size": 2}
    opts.update(kwargs)
    return SoftActorCritic(
        policy,
        q1,
        q2,
        adam(policy),
        adam(q1),
        adam(q2),
        ReplayBuffer(100),
        gamma=0.9,
        **opts,
    )


def gaussian_policy(obs_size=2, action_size=1):
    return kusari.Sequential(
        L.Linear(obs_size, 8),
        F.relu,
        L.Linear(8, 2 * action_size),
        SquashedDiagonalGaussianHead(),
    )


def test_soft_target_by_hand():
    agent = make_sac(initial_temperature=0.2)
    s2 = np.array([[2.0, 1.0], [0.0, 3.0]])
    b = batch([[0, 0], [0, 0]], [[0], [0]], [1.0, -1.0], s2, [0.0, 1.0], [0.9, 0.9])
    q1 = s2[:, 0] + 2 * 0.5 + 0.5
    q2 = s2[:, 1] - 0.5
    soft_v = np.minimum(q1, q2) - 0.2 * (-1.25)
    expected = np.array([1.0, -1.0]) + 0.9 * np.array([1.0, 0.0]) * soft_v
    np.testing.assert_allclose(agent.compute_target_q(b), expected, rtol=1e-5)


def test_truncated_transition_bootstraps():
    agent = make_sac(initial_temperature=0.5, replay_start_size=1000)
    obs, _ = (env := TinyEnv(horizon=2)).reset(seed=0)
    r = 0.0
    while True:
        a = agent.act_and_train(obs, r)
        obs, r, term, trunc, _ = env.step(a)
        if term or trunc:
            agent.stop_episode_and_train(obs, r, done=term)
            break
    last = [e for e in agent.replay_buffer.memory if e[0]["next_state"][0] == 2][0]
    b = batch_experiences([last], np, agent.phi, agent.gamma)
    soft_v = min(2.0 + 1.0 + 0.5, 1.0 - 0.5) + 0.5 * 1.25
    np.testing.assert_allclose(
        agent.compute_target_q(b), [1.0 + 0.9 * soft_v], rtol=1e-5
    )


@pytest.mark.parametrize("entropy, direction", [(-3.0, +1), (2.0, -1)])
def test_temperature_moves_towards_entropy_target(entropy, direction):
    # Target entropy -1: an entropy (-log_prob) below it must raise the
    # temperature (more exploration), one above it must lower it.
    agent = make_sac(
        entropy_target=-1.0,
        initial_temperature=1.0,
        temperature_optimizer=kusari.optimizers.SGD(lr=0.1),
    )
    agent.update_temperature(np.full(4, -entropy, np.float32))
    assert np.sign(agent.temperature - 1.0) == direction
    # Loss -alpha * (log_prob + target); d/d(log alpha) = -alpha * c, alpha = 1.
    c = -entropy - 1.0
    assert math.isclose(math.log(agent.temperature), 0.1 * c, rel_tol=1e-5)


def test_fixed_temperature_without_entropy_target():
    agent = make_sac(initial_temperature=0.3)
    assert agent.temperature_holder is None and agent.temperature == 0.3
    holder = TemperatureHolder(math.log(0.3))
    np.testing.assert_allclose(holder().array, 0.3, rtol=1e-6)
    with pytest.raises(ValueError, match="initial_temperature"):
        make_sac(initial_temperature=0.0)


def test_updates_run_and_targets_soft_update():
    np.random.seed(0)
    policy = gaussian_policy()
    agent = make_sac(
        policy=policy,
        entropy_target=-1.0,
        soft_update_tau=0.25,
        replay_start_size=4,
        minibatch_size=4,
    )
    rng = np.random.default_rng(0)
    for _ in range(6):
        agent.replay_buffer.append(
            state=rng.normal(size=2).astype(np.float32),
            action=rng.uniform(-1, 1, 1).astype(np.float32),
            reward=float(rng.normal()),
            next_state=rng.normal(size=2).astype(np.float32),
        )
    old_target = agent.target_q_func2.l.W.array.copy()
    old_pi = policy[0].W.array.copy()
    agent.update(agent.replay_buffer.sample(4))
    new_online = agent.q_func2.l.W.array
    np.testing.assert_allclose(
        agent.target_q_func2.l.W.array, 0.75 * old_target + 0.25 * new_online, rtol=1e-6
    )
    assert not np.array_equal(policy[0].W.array, old_pi)
    stats = dict(agent.get_statistics())
    assert stats["n_updates"] == 1 and np.isfinite(stats["average_q1"])
    assert np.isfinite(stats["average_entropy"]) and stats["temperature"] != 1.0


def test_policy_step_increases_soft_value():
    np.random.seed(1)
    policy = gaussian_policy()
    agent = make_sac(policy=policy, initial_temperature=0.01)
    s = np.random.default_rng(2).normal(size=(64, 2)).astype(np.float32)
    b = batch(s, np.zeros((64, 1)), np.zeros(64), s, np.zeros(64), np.full(64, 0.9))

    def q_at_mode():
        with kusari.no_backprop_mode():
            a = policy(s).most_probable
            return float(
                F.minimum(agent.q_func1(s, a), agent.q_func2(s, a)).array.mean()
            )

    before = q_at_mode()
    for _ in range(20):
        agent.update_policy_and_temperature(b)
    assert q_at_mode() > before


def test_act_deterministic_or_sampled():
    policy = gaussian_policy()
    obs = np.ones(2, np.float32)
    agent = make_sac(policy=policy)
    with kusari.no_backprop_mode():
        mode = policy(obs[None]).most_probable.array[0]
    with agent.eval_mode():
        np.testing.assert_allclose(agent.act(obs), mode, rtol=1e-6)
        np.testing.assert_allclose(agent.batch_act([obs, obs])[1], mode, rtol=1e-6)
    assert len(agent.replay_buffer) == 0 and agent.t == 0
    agent = make_sac(policy=policy, act_deterministically=False)
    with agent.eval_mode():
        draws = np.array([agent.act(obs)[0] for _ in range(20)])
    assert draws.std() > 0 and np.all(np.abs(draws) < 1)


def test_pfrl_act_observe_and_save_load(tmp_path):
    np.random.seed(0)
    agent = make_sac(policy=gaussian_policy(), entropy_target=-1.0)
    env = TinyEnv(horizon=3)
    for episode in range(2):
        obs, _ = env.reset(seed=episode)
        while True:
            obs, r, term, trunc, _ = env.step(agent.act(obs))
            agent.observe(obs, r, term, trunc)
            if term or trunc:
                break
    assert len(agent.replay_buffer) == 6 and agent.policy_optimizer.t > 0
    agent.save(str(tmp_path))
    other = make_sac(policy=gaussian_policy(), entropy_target=-1.0)
    other.load(str(tmp_path))
    assert other.temperature == pytest.approx(agent.temperature)
    np.testing.assert_array_equal(other.policy[0].W.array, agent.policy[0].W.array)


def test_record_mean_keeps_the_last_maxlen_values():
    from kusari_rl.agents._replay_actor_critic import RecordMean

    rec = RecordMean(5)
    assert np.isnan(rec.mean()) and len(rec) == 0
    rec.extend(np.arange(4.0))
    rec.append(10.0)
    assert rec.mean() == pytest.approx((0 + 1 + 2 + 3 + 10) / 5)
    rec.extend(np.array([20.0, 30.0]))  # window: 2, 3, 10, 20, 30
    assert len(rec) == 5 and rec.mean() == pytest.approx(13.0)


@pytest.mark.gpu
@pytest.mark.skipif(not cuda.available, reason="CuPy / a CUDA GPU is not available")
def test_sac_and_td3_update_on_gpu():
    from kusari_rl.agents import TD3
    from kusari_rl.explorers import AdditiveGaussian
    from kusari_rl.policies import FCDeterministicPolicy
    from kusari_rl.q_functions import FCSAQFunction

    def qs():
        return FCSAQFunction(2, 1, 8, 2), FCSAQFunction(2, 1, 8, 2)

    policy = gaussian_policy()
    q1, q2 = qs()
    sac = SoftActorCritic(
        policy,
        q1,
        q2,
        adam(policy),
        adam(q1),
        adam(q2),
        ReplayBuffer(100),
        gamma=0.9,
        gpu=0,
        replay_start_size=4,
        minibatch_size=4,
        entropy_target=-1.0,
    )
    pi = FCDeterministicPolicy(
        2, 1, 8, 1, min_action=-np.ones(1), max_action=np.ones(1)
    )
    p1, p2 = qs()
    td3 = TD3(
        pi,
        p1,
        p2,
        adam(pi),
        adam(p1),
        adam(p2),
        ReplayBuffer(100),
        gamma=0.9,
        explorer=AdditiveGaussian(0.1, -1, 1),
        gpu=0,
        replay_start_size=4,
        minibatch_size=4,
    )
    for agent in (sac, td3):
        obs = np.zeros(2, np.float32)
        for i in range(8):
            action = agent.act_and_train(obs + i, 1.0)
            assert isinstance(action, np.ndarray)
        stats = dict(agent.get_statistics())
        assert np.isfinite(stats["average_q1"])
