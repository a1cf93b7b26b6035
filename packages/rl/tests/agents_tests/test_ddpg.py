import numpy as np
import pytest
from _continuous_helpers import (
    LinearDeterministicPolicy,
    LinearQ,
    TinyEnv,
    adam,
    batch,
)

from kusari_rl.agents.ddpg import DDPG, DDPGModel
from kusari_rl.explorers import AdditiveGaussian
from kusari_rl.replay_buffers import ReplayBuffer


def make_ddpg(**kwargs):
    model = DDPGModel(
        policy=LinearDeterministicPolicy(2, 1, w=[[0.5, 0.0]]),
        q_func=LinearQ(2, 1, w=[1.0, 0.0, 2.0], b=0.5),
    )
    opts = {"replay_start_size": 2, "minibatch_size": 2}
    opts.update(kwargs)
    return DDPG(
        model,
        adam(model["policy"]),
        adam(model["q_function"]),
        ReplayBuffer(100),
        gamma=0.9,
        explorer=AdditiveGaussian(0.1, -1, 1),
        **opts,
    )


def test_critic_loss_by_hand():
    agent = make_ddpg()
    s = np.array([[1.0, 0.0], [0.0, 2.0]])
    a = np.array([[0.5], [-0.5]])
    s2 = np.array([[2.0, 1.0], [0.0, 3.0]])
    b = batch(s, a, [1.0, -1.0], s2, [0.0, 1.0], [0.9, 0.9])
    q_next = s2[:, 0] + 2 * np.tanh(0.5 * s2[:, 0]) + 0.5
    target = np.array([1.0, -1.0]) + 0.9 * np.array([1.0, 0.0]) * q_next
    pred = s[:, 0] + 2 * a[:, 0] + 0.5
    loss = agent.compute_critic_loss(b)
    np.testing.assert_allclose(loss.array, np.mean((pred - target) ** 2), rtol=1e-5)


def test_actor_step_increases_q_and_hard_target_sync():
    agent = make_ddpg(target_update_interval=3, replay_start_size=100)
    s = np.random.default_rng(0).normal(size=(8, 2)).astype(np.float32)
    b = batch(s, np.zeros((8, 1)), np.zeros(8), s, np.zeros(8), np.full(8, 0.9))

    def q_of_policy():
        return agent.q_function(s, agent.policy(s).sample()).array.mean()

    before = q_of_policy()
    for _ in range(5):
        agent.actor_optimizer.update(lambda: agent.compute_actor_loss(b))
    assert q_of_policy() > before
    assert not np.allclose(agent.target_policy.l.W.array, agent.policy.l.W.array)
    obs = np.zeros(2, np.float32)
    for _ in range(3):  # the third step syncs (t % 3 == 0)
        agent.act_and_train(obs, 0.0)
    np.testing.assert_array_equal(agent.target_policy.l.W.array, agent.policy.l.W.array)


def test_soft_target_update():
    agent = make_ddpg(
        target_update_method="soft", soft_update_tau=0.5, target_update_interval=1
    )
    old = agent.target_q_function.l.W.array.copy()
    agent.q_function.l.W.array[...] = 3.0
    agent.sync_target_network()
    np.testing.assert_allclose(agent.target_q_function.l.W.array, 0.5 * old + 1.5)


def test_episode_storage_and_statistics():
    agent = make_ddpg(replay_start_size=2)
    env = TinyEnv(horizon=3)
    obs, _ = env.reset(seed=0)
    r = 0.0
    while True:
        obs, r, term, trunc, _ = env.step(agent.act_and_train(obs, r))
        if term or trunc:
            agent.stop_episode_and_train(obs, r, done=term)
            break
    flags = [e[0]["is_state_terminal"] for e in agent.replay_buffer.memory]
    assert flags == [False, False, False]
    stats = dict(agent.get_statistics())
    assert set(stats) == {"average_q", "average_actor_loss", "average_critic_loss"}
    assert stats["average_critic_loss"] != 0.0
    with pytest.raises(RuntimeError, match="stop_episode_and_train"):
        agent.stop_episode_and_train(obs, 0.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="episodic_update"):
        make_ddpg(episodic_update=True)
    with pytest.raises(ValueError, match="target_update_method"):
        make_ddpg(target_update_method="polyak")
