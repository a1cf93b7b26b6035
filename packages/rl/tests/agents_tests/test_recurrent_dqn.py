"""Recurrent DQN family (``recurrent=True``): hidden states and learning."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl import agents, explorers, misc, replay_buffers
from kusari_rl.action_value import (
    DiscreteActionValue,
    DistributionalDiscreteActionValue,
)
from kusari_rl.links import StatelessRecurrentSequential
from kusari_rl.replay_buffer import batch_recurrent_experiences


class CueRecall:
    """A memory task no feed-forward agent solves.

    The first observation shows a cue (one of two); ``delay`` blank steps
    follow, the last one flagged as the query. The action taken on the query
    step earns +1 if it names the cue, -1 otherwise; every other step earns 0.
    A memoryless policy averages 0.
    """

    def __init__(self, delay: int = 3, seed: int = 0) -> None:
        self.delay = delay
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.t = 0
        self.cue = int(self.rng.integers(2))
        obs = np.zeros(3, np.float32)
        obs[self.cue] = 1.0
        return obs

    def step(self, action):
        self.t += 1
        obs = np.zeros(3, np.float32)
        if self.t > self.delay:
            return obs, (1.0 if action == self.cue else -1.0), True
        if self.t == self.delay:
            obs[2] = 1.0
        return obs, 0.0, False


def _q(hidden=32):
    return StatelessRecurrentSequential(
        L.Linear(3, hidden),
        F.relu,
        L.NStepLSTM(1, hidden, hidden, 0.0),
        L.Linear(hidden, 2),
        DiscreteActionValue,
    )


def _agent(cls=agents.DQN, q=None, steps=1000, **kwargs):
    q = _q() if q is None else q
    opt = kusari.optimizers.Adam(1e-3)
    opt.setup(q)
    kwargs.setdefault("replay_start_size", 100)
    kwargs.setdefault("minibatch_size", 16)
    kwargs.setdefault("target_update_interval", 100)
    return cls(
        q,
        opt,
        replay_buffers.EpisodicReplayBuffer(10**4),
        0.9,
        explorers.LinearDecayEpsilonGreedy(
            1.0, 0.1, steps // 2, lambda: np.random.randint(2)
        ),
        recurrent=True,
        **kwargs,
    )


def _h(state):
    """The LSTM's h of a StatelessRecurrentSequential state."""
    return state[0][0]


def test_eval_state_carries_across_steps_and_resets_at_episode_end():
    agent = _agent()
    obs = np.array([1, 0, 0], np.float32)
    assert agent.test_recurrent_states is None
    with agent.eval_mode():
        agent.act(obs)
        h1 = _h(agent.test_recurrent_states).copy()
        agent.act(obs)
        h2 = _h(agent.test_recurrent_states)
        assert h1.shape == (1, 1, 32) and not np.allclose(h1, h2)
        agent.stop_episode()
        assert agent.test_recurrent_states is None
        agent.act(obs)
        np.testing.assert_allclose(_h(agent.test_recurrent_states), h1, rtol=1e-6)
    # Evaluation leaves the training state alone.
    assert agent.train_recurrent_states is None


def test_train_states_are_stored_with_transitions_and_reset_at_episode_end():
    agent = _agent(replay_start_size=10**6)
    env = CueRecall(delay=2)
    obs, r = env.reset(), 0.0
    done = False
    while not done:
        a = agent.act_and_train(obs, r)
        obs, r, done = env.step(a)
    agent.stop_episode_and_train(obs, r, done)
    assert agent.train_recurrent_states is None
    (episode,) = list(agent.replay_buffer.episodic_memory)
    assert len(episode) == 3
    assert episode[0]["recurrent_state"] is None  # the initial state
    for prev, nxt in zip(episode, episode[1:]):
        # The state after a transition's state is the next one's start.
        for a, b in zip(prev["next_recurrent_state"][0], nxt["recurrent_state"][0]):
            np.testing.assert_array_equal(a, b)
    # The stored states are those of the model stepping through the episode.
    rs = None
    for t in episode:
        _, rs = agent.model(t["state"][None], rs)
    np.testing.assert_allclose(
        episode[-1]["next_recurrent_state"][0][0], rs[0][0].array[:, 0], rtol=1e-5
    )


def test_batch_states_carry_per_env_and_reset_only_ended_envs():
    agent = _agent(replay_start_size=10**6)
    obs = [np.array([1, 0, 0], np.float32), np.array([0, 1, 0], np.float32)]
    agent.batch_act_and_train(obs)
    agent.batch_observe_and_train(obs, [0.0, 0.0], [False, False], [False, False])
    h1 = _h(agent.train_recurrent_states).copy()
    assert h1.shape == (1, 2, 32) and np.all(h1 != 0)
    agent.batch_act_and_train(obs)
    agent.batch_observe_and_train(obs, [0.0, 1.0], [False, True], [False, False])
    h2 = _h(agent.train_recurrent_states)
    assert not np.allclose(h2[:, 0], h1[:, 0])  # env 0 carries on
    assert np.all(h2[:, 1] == 0)  # env 1's episode ended
    # Env 1's next step starts like a fresh episode (batch index 1 reset).
    agent.batch_act_and_train(obs)
    _, fresh = agent.model(obs[1][None], None)
    np.testing.assert_allclose(
        _h(agent.train_recurrent_states)[:, 1], fresh[0][0].array[:, 0], rtol=1e-5
    )
    assert agent.replay_buffer.n_episodes == 1
    # Evaluation states: same per-env reset through batch_observe.
    with agent.eval_mode():
        agent.batch_act(obs)
        agent.batch_observe(obs, [0.0, 0.0], [False, False], [True, False])
    th = _h(agent.test_recurrent_states)
    assert np.all(th[:, 0] == 0) and np.all(th[:, 1] != 0)


def test_update_from_sequences_lowers_the_loss_and_uses_stored_states():
    agent = _agent(replay_start_size=10**6, episodic_update_len=2)
    env = CueRecall(delay=3)
    for _ in range(20):
        obs, r, done = env.reset(), 0.0, False
        while not done:
            obs, r, done = env.step(agent.act_and_train(obs, r))
        agent.stop_episode_and_train(obs, r, done)
    rb = agent.replay_buffer
    episodes = rb.sample_episodes(8, 2)
    assert all(len(e) == 2 for e in episodes)
    losses = []
    for _ in range(30):
        batch = batch_recurrent_experiences(episodes, agent.model, np, None, 0.9)
        losses.append(float(agent._compute_loss(batch).array))
        agent.update_from_episodes(episodes)
    assert losses[-1] < losses[0] * 0.5
    assert agent.optimizer.t == 30
    with pytest.raises(ValueError, match="errors_out must be None"):
        agent.update_from_episodes(episodes, errors_out=[])


@pytest.mark.parametrize(
    "cls", [agents.DoubleDQN, agents.PAL, agents.DoublePAL, agents.DQN]
)
def test_dqn_variants_update_recurrently(cls):
    agent = _agent(cls, replay_start_size=20, minibatch_size=4)
    env = CueRecall(delay=2)
    for _ in range(12):
        obs, r, done = env.reset(), 0.0, False
        while not done:
            obs, r, done = env.step(agent.act_and_train(obs, r))
        agent.stop_episode_and_train(obs, r, done)
    assert agent.optimizer.t > 0
    assert np.isfinite(agent.average_loss)


def test_categorical_dqn_updates_recurrently():
    n_atoms = 11
    z = np.linspace(-1, 1, n_atoms).astype(np.float32)

    def head(h):
        logits = F.reshape(h, (-1, 2, n_atoms))
        return DistributionalDiscreteActionValue(F.softmax(logits, axis=2), z)

    q = StatelessRecurrentSequential(
        L.Linear(3, 16), L.NStepGRU(1, 16, 16, 0.0), L.Linear(16, 2 * n_atoms), head
    )
    agent = _agent(
        agents.CategoricalDoubleDQN, q=q, replay_start_size=20, minibatch_size=4
    )
    env = CueRecall(delay=2)
    for _ in range(12):
        obs, r, done = env.reset(), 0.0, False
        while not done:
            obs, r, done = env.step(agent.act_and_train(obs, r))
        agent.stop_episode_and_train(obs, r, done)
    assert agent.optimizer.t > 0 and np.isfinite(agent.average_loss)


def test_recurrent_needs_an_episodic_buffer_and_a_recurrent_model():
    q = _q()
    opt = kusari.optimizers.Adam()
    opt.setup(q)
    with pytest.raises(TypeError, match="episodic replay buffer"):
        agents.DQN(
            q,
            opt,
            replay_buffers.ReplayBuffer(),
            0.9,
            explorers.Greedy(),
            recurrent=True,
        )


def test_pfrl_convention_and_snapshot_attributes():
    agent = _agent(replay_start_size=10**6)
    obs = np.array([1, 0, 0], np.float32)
    agent.act(obs)  # PFRL mode, training: advances the training state
    assert agent.train_recurrent_states is not None
    assert agent.test_recurrent_states is None
    agent.observe(obs, 0.0, False, False)
    agent.act(obs)
    agent.observe(obs, 1.0, True, False)
    assert agent.train_recurrent_states is None
    assert agent.replay_buffer.n_episodes == 1
    with agent.eval_mode():
        agent.act(obs)
        assert agent.test_recurrent_states is not None
        agent.observe(obs, 0.0, False, True)
        assert agent.test_recurrent_states is None
    assert "train_recurrent_states" in agent.snapshot_attributes


@pytest.mark.slow
def test_recurrent_double_dqn_solves_cue_recall():
    steps = 800
    agent = _agent(agents.DoubleDQN, steps=steps)
    env = CueRecall(delay=3, seed=1)
    obs, r = env.reset(), 0.0
    for _ in range(steps):
        obs, r, done = env.step(agent.act_and_train(obs, r))
        if done:
            agent.stop_episode_and_train(obs, r, True)
            obs, r = env.reset(), 0.0
    total = 0.0
    for _ in range(40):
        obs, done = env.reset(), False
        while not done:
            obs, r, done = env.step(agent.act(obs))
        total += r
        agent.stop_episode()
    # A memoryless policy averages 0; remembering the cue gives 1.
    assert total / 40 >= 0.9


def test_runs_in_the_training_loops_with_evaluation(tmp_path):
    import gymnasium as gym

    from kusari_rl import experiments

    class NoVelocity(gym.ObservationWrapper):
        """CartPole without its velocities: a POMDP."""

        def __init__(self, env):
            super().__init__(env)
            self.observation_space = gym.spaces.Box(-np.inf, np.inf, (3,), np.float32)

        def observation(self, o):
            return np.asarray([o[0], o[2], 0.0], np.float32)

    def make():
        # Seeded: the episode lengths decide when the first update comes.
        env = NoVelocity(gym.make("CartPole-v1"))
        env.reset(seed=0)
        env.action_space.seed(0)
        return env

    misc.set_random_seed(0)
    agent = _agent(agents.DoubleDQN, replay_start_size=30, minibatch_size=2)
    experiments.train_agent_with_evaluation(
        agent,
        make(),
        steps=100,
        eval_n_steps=None,
        eval_n_episodes=1,
        eval_interval=50,
        eval_max_episode_len=30,
        outdir=str(tmp_path / "single"),
        eval_env=make(),
    )
    assert agent.optimizer.t > 0
    agent = _agent(agents.DoubleDQN, replay_start_size=30, minibatch_size=2)
    experiments.train_agent_batch_with_evaluation(
        agent,
        gym.vector.SyncVectorEnv([make] * 2),
        steps=120,
        eval_n_steps=None,
        eval_n_episodes=1,
        eval_interval=60,
        eval_max_episode_len=30,
        outdir=str(tmp_path / "batch"),
        eval_env=gym.vector.SyncVectorEnv([make] * 2),
    )
    assert agent.optimizer.t > 0 and (tmp_path / "batch").exists()


def test_iqn_updates_recurrently():
    from kusari_rl.agents.iqn import CosineBasisLinear, ImplicitQuantileQFunction
    from kusari_rl.links import Sequence

    hidden = 16
    head = ImplicitQuantileQFunction(
        psi=Sequence(L.Linear(hidden, hidden), F.relu),
        phi=Sequence(CosineBasisLinear(8, hidden), F.relu),
        f=L.Linear(hidden, 2),
    )
    q = StatelessRecurrentSequential(
        L.Linear(3, hidden), L.NStepLSTM(1, hidden, hidden, 0.0), head
    )
    agent = _agent(
        agents.IQN,
        q=q,
        replay_start_size=20,
        minibatch_size=4,
        quantile_thresholds_N=8,
        quantile_thresholds_N_prime=8,
        quantile_thresholds_K=4,
    )
    env = CueRecall(delay=2)
    for _ in range(12):
        obs, r, done = env.reset(), 0.0, False
        while not done:
            obs, r, done = env.step(agent.act_and_train(obs, r))
        agent.stop_episode_and_train(obs, r, done)
    assert agent.optimizer.t > 0 and np.isfinite(agent.average_loss)
    with agent.eval_mode():
        agent.act(env.reset())
    assert agent.test_recurrent_states is not None
