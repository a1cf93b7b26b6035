import numpy as np
import pytest
from _continuous_helpers import (
    LinearDeterministicPolicy,
    LinearQ,
    TinyEnv,
    adam,
    batch,
)

from kusari_rl.agents.td3 import TD3, default_target_policy_smoothing_func
from kusari_rl.explorers import AdditiveGaussian
from kusari_rl.replay_buffer import batch_experiences
from kusari_rl.replay_buffers import ReplayBuffer


def make_td3(smoothing=lambda a: a, **kwargs):
    policy = LinearDeterministicPolicy(2, 1, w=[[0.5, 0.0]], b=0.0)
    q1 = LinearQ(2, 1, w=[1.0, 0.0, 2.0], b=0.5)
    q2 = LinearQ(2, 1, w=[0.0, 1.0, -1.0], b=0.0)
    opts = {"replay_start_size": 2, "minibatch_size": 2}
    opts.update(kwargs)
    return TD3(
        policy,
        q1,
        q2,
        adam(policy),
        adam(q1),
        adam(q2),
        ReplayBuffer(100),
        gamma=0.9,
        explorer=AdditiveGaussian(0.1, -1, 1),
        target_policy_smoothing_func=smoothing,
        **opts,
    )


def test_target_is_twin_min_with_bootstrap():
    agent = make_td3()
    s2 = np.array([[2.0, 1.0], [0.0, 3.0]])
    b = batch([[0, 0], [0, 0]], [[0], [0]], [1.0, -1.0], s2, [0.0, 1.0], [0.9, 0.9])
    a2 = np.tanh(0.5 * s2[:, 0])
    q1 = 1.0 * s2[:, 0] + 2.0 * a2 + 0.5
    q2 = 1.0 * s2[:, 1] - 1.0 * a2
    expected = np.array([1.0, -1.0]) + 0.9 * np.array([1.0, 0.0]) * np.minimum(q1, q2)
    np.testing.assert_allclose(agent.compute_target_q(b), expected, rtol=1e-5)
    # First row takes q2 (smaller), so the min matters; second is terminal.
    assert q2[0] < q1[0]


def test_default_target_smoothing_clips_noise_and_action():
    np.random.seed(0)
    a = np.zeros((20000, 2), np.float32)
    out = default_target_policy_smoothing_func(a)
    assert out.dtype == np.float32 and out.shape == a.shape
    assert np.abs(out).max() <= 0.5 + 1e-7
    assert abs(out.std() - 0.2) < 0.02  # barely touched by the +-0.5 clip
    near_edge = default_target_policy_smoothing_func(
        np.full((1000, 1), 0.9, np.float32)
    )
    assert near_edge.max() <= 1.0 and near_edge.min() >= 0.4 - 1e-6


def test_policy_update_is_delayed_and_targets_soft_updated():
    agent = make_td3(soft_update_tau=0.1, policy_update_delay=2)
    rng = np.random.default_rng(0)
    for _ in range(4):
        agent.replay_buffer.append(
            state=rng.normal(size=2).astype(np.float32),
            action=rng.uniform(-1, 1, 1).astype(np.float32),
            reward=1.0,
            next_state=rng.normal(size=2).astype(np.float32),
        )
    tq_before = agent.target_q_func1.l.W.array.copy()
    agent.update(agent.replay_buffer.sample(2))
    assert agent.policy_optimizer.t == 0 and agent.q_func1_optimizer.t == 1
    np.testing.assert_array_equal(agent.target_q_func1.l.W.array, tq_before)
    agent.update(agent.replay_buffer.sample(2))
    assert agent.policy_optimizer.t == 1 and agent.q_func2_optimizer.t == 2
    online = agent.q_func1.l.W.array
    np.testing.assert_allclose(
        agent.target_q_func1.l.W.array, 0.9 * tq_before + 0.1 * online, rtol=1e-6
    )


def test_policy_step_increases_q1():
    agent = make_td3()
    s = np.random.default_rng(1).normal(size=(8, 2)).astype(np.float32)
    b = batch(s, np.zeros((8, 1)), np.zeros(8), s, np.zeros(8), np.full(8, 0.9))

    def q_of_policy():
        return agent.q_func1(s, agent.policy(s).sample()).array.mean()

    before = q_of_policy()
    for _ in range(5):
        agent.update_policy(b)
    assert q_of_policy() > before


def _run_episode(agent, env, seed=0):
    obs, _ = env.reset(seed=seed)
    reward = 0.0
    while True:
        action = agent.act_and_train(obs, reward)
        obs, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            agent.stop_episode_and_train(obs, reward, done=terminated)
            return


def test_truncation_bootstraps_and_termination_does_not():
    # An episode cut by the time limit at step 3: its last transition must
    # bootstrap, with the target computed by hand from the stored next state.
    agent = make_td3(replay_start_size=1000)
    _run_episode(agent, TinyEnv(horizon=3))
    last = [e for e in agent.replay_buffer.memory if e[0]["next_state"][0] == 3][0]
    assert last[0]["is_state_terminal"] is False
    b = batch_experiences([last], np, agent.phi, agent.gamma)
    s2 = np.array([3.0, 1.0])
    a2 = np.tanh(0.5 * 3.0)
    q = min(3.0 + 2 * a2 + 0.5, 1.0 - a2)
    np.testing.assert_allclose(agent.compute_target_q(b), [1.0 + 0.9 * q], rtol=1e-5)
    assert s2[0] == b["next_state"][0, 0]

    agent2 = make_td3(replay_start_size=1000)
    _run_episode(agent2, TinyEnv(horizon=5, terminal_at=2))
    last = [e for e in agent2.replay_buffer.memory if e[0]["next_state"][0] == 2][0]
    assert last[0]["is_state_terminal"] is True
    b = batch_experiences([last], np, agent2.phi, agent2.gamma)
    np.testing.assert_allclose(agent2.compute_target_q(b), [1.0])


def test_burnin_then_explored_policy_actions():
    calls = []

    def burnin():
        calls.append(1)
        return np.array([0.25], np.float32)

    agent = make_td3(burnin_action_func=burnin, replay_start_size=3)
    obs = np.zeros(2, np.float32)
    a = agent.act_and_train(obs, 0.0)
    np.testing.assert_array_equal(a, [0.25])
    for _ in range(8):
        agent.act_and_train(obs, 0.0)
    assert agent.policy_optimizer.t >= 1
    n = len(calls)
    a = agent.act_and_train(obs, 0.0)
    assert len(calls) == n  # no more burn-in once the policy was updated
    assert -1 <= float(a[0]) <= 1
    np.testing.assert_allclose(
        agent.act(obs), np.tanh(agent.policy.l.b.array), rtol=1e-5
    )
    assert dict(agent.get_statistics())["policy_n_updates"] == agent.policy_optimizer.t


def test_batch_interface_separates_envs_and_flags():
    agent = make_td3(replay_start_size=1000)
    obs = [np.zeros(2, np.float32), np.ones(2, np.float32)]
    actions = agent.batch_act_and_train(obs)
    assert len(actions) == 2
    nxt = [np.full(2, 2.0, np.float32), np.full(2, 3.0, np.float32)]
    agent.batch_observe_and_train(nxt, [1.0, 2.0], [True, False], [False, True])
    assert agent.t == 2
    stored = {float(e[0]["reward"]): e[0] for e in agent.replay_buffer.memory}
    assert stored[1.0]["is_state_terminal"] is True
    assert stored[2.0]["is_state_terminal"] is False
    np.testing.assert_array_equal(stored[2.0]["next_state"], nxt[1])
    assert agent.batch_last_obs == [None, None]
    assert len(agent.batch_act(obs)) == 2


def test_save_load_roundtrip(tmp_path):
    # Optimizer state exists only after a first update, as in Chainer.
    agent = make_td3()
    for i in range(4):
        agent.act_and_train(np.full(2, i, np.float32), 1.0)
    assert agent.policy_optimizer.t >= 1
    agent.q_func1.l.W.array[...] = 7.0
    agent.save(str(tmp_path / "agent"))
    other = make_td3()
    for i in range(4):
        other.act_and_train(np.full(2, -i, np.float32), 0.0)
    other.load(str(tmp_path / "agent"))
    np.testing.assert_array_equal(other.q_func1.l.W.array, 7.0)
    np.testing.assert_array_equal(
        other.target_policy.l.W.array, agent.target_policy.l.W.array
    )
    assert other.q_func1_optimizer.t == agent.q_func1_optimizer.t


def test_bad_arguments():
    with pytest.raises(ValueError, match="TD3: policy_update_delay"):
        make_td3(policy_update_delay=0)


def test_trains_with_vector_env_loop(tmp_path):
    # The batch calls as the experiments' vector-env loop makes them: a
    # truncated episode stays non-terminal, a terminated one is terminal.
    from kusari_rl import experiments

    agent = make_td3(replay_start_size=4, minibatch_size=4)
    venv = experiments.make_vector_env(
        [lambda: TinyEnv(horizon=3), lambda: TinyEnv(horizon=5, terminal_at=2)]
    )
    experiments.train_agent_batch_with_evaluation(
        agent,
        venv,
        steps=40,
        eval_n_steps=None,
        eval_n_episodes=1,
        eval_interval=20,
        outdir=str(tmp_path),
        eval_env=TinyEnv(horizon=3),
    )
    venv.close()
    assert agent.q_func1_optimizer.t > 0
    stored = [e[0] for e in agent.replay_buffer.memory]
    ends = {(float(t["next_state"][0]), t["is_state_terminal"]) for t in stored}
    assert (3.0, False) in ends and (2.0, True) in ends
    assert not any(t["is_state_terminal"] for t in stored if t["next_state"][0] != 2)
