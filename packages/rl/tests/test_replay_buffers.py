import collections
import pickle

import numpy as np
import pytest

from kusari_rl.misc import RandomAccessQueue, SumTree
from kusari_rl.replay_buffer import ReplayUpdater, batch_experiences
from kusari_rl.replay_buffers import (
    EpisodicReplayBuffer,
    PrioritizedEpisodicReplayBuffer,
    PrioritizedReplayBuffer,
    ReplayBuffer,
)


def _fill(rb, n, terminal_at=None, env_id=0, start=0):
    for t in range(start, start + n):
        rb.append(
            state=t,
            action=t % 3,
            reward=float(t),
            next_state=t + 1,
            is_state_terminal=(t == terminal_at),
            env_id=env_id,
        )


# ---- RandomAccessQueue ------------------------------------------------------


def test_random_access_queue_matches_deque():
    q = RandomAccessQueue(maxlen=5)
    d: collections.deque = collections.deque(maxlen=5)
    for i in range(13):
        q.append(i)
        d.append(i)
        assert list(q) == list(d)
        assert q[0] == d[0] and q[-1] == d[-1]
    assert q.popleft() == d.popleft()
    assert list(q) == list(d)
    unbounded = RandomAccessQueue(range(10))
    for _ in range(7):
        unbounded.popleft()
    assert list(unbounded) == [7, 8, 9]
    sample = unbounded.sample(3)
    assert sorted(sample) == [7, 8, 9]
    with pytest.raises(ValueError, match="only 3 stored"):
        unbounded.sample(4)


# ---- SumTree ----------------------------------------------------------------


def test_sum_tree_matches_brute_force():
    rng = np.random.default_rng(0)
    tree = SumTree(100)
    pri = np.zeros(100)
    for _ in range(20):
        idx = rng.integers(0, 100, size=7)
        val = rng.random(7)
        tree.set(idx, val)
        for i, v in zip(idx, val):  # later duplicates win, like numpy
            pri[i] = v
        assert tree.total() == pytest.approx(pri.sum())
        assert tree.min() == pytest.approx(pri[pri > 0].min() if (pri > 0).any() else 0)
        u = rng.random(50) * pri.sum()
        expected = np.searchsorted(np.cumsum(pri), u, side="right")
        np.testing.assert_array_equal(tree.find(u), expected)


def test_sum_tree_sampling_frequencies_and_growth():
    tree = SumTree(2)
    tree.set([0, 1, 2, 5], [1.0, 2.0, 3.0, 4.0])  # grows past capacity 2
    assert tree.capacity >= 6
    counts = np.bincount(tree.sample(20000, np.random.default_rng(1)), minlength=6)
    np.testing.assert_allclose(counts / 20000, [0.1, 0.2, 0.3, 0, 0, 0.4], atol=0.01)
    tree.clear([5])
    assert tree.total() == pytest.approx(6.0)
    restored = pickle.loads(pickle.dumps(tree))
    assert restored.total() == pytest.approx(6.0) and restored.min() == 1.0


def test_sum_tree_rejects_bad_priorities():
    with pytest.raises(ValueError, match="finite and >= 0"):
        SumTree(4).set([0], [-1.0])


# ---- n-step replay buffer ---------------------------------------------------


def test_n_step_returns_match_hand_computation():
    gamma = 0.5
    rb = ReplayBuffer(num_steps=3)
    _fill(rb, 5, terminal_at=4)  # rewards 0,1,2,3,4; state 4 -> 5 terminal
    # Windows starting at 0,1,2 are full; 3 and 4 are flushed by the terminal.
    assert len(rb) == 5
    exps = [rb.memory[i] for i in range(5)]
    batch = batch_experiences(exps, np, None, gamma)
    np.testing.assert_array_equal(batch["state"], [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(batch["next_state"], [3, 4, 5, 5, 5])
    expected = [
        0 + 0.5 * 1 + 0.25 * 2,
        1 + 0.5 * 2 + 0.25 * 3,
        2 + 0.5 * 3 + 0.25 * 4,
        3 + 0.5 * 4,
        4,
    ]
    np.testing.assert_allclose(batch["reward"], expected)
    np.testing.assert_allclose(batch["discount"], [0.125, 0.125, 0.125, 0.25, 0.5])
    np.testing.assert_array_equal(batch["is_state_terminal"], [0, 0, 1, 1, 1])


def test_truncated_episode_keeps_bootstrapping():
    rb = ReplayBuffer(num_steps=2)
    _fill(rb, 3)  # no terminal: a time-limit cut
    rb.stop_current_episode()
    batch = batch_experiences(list(rb.memory), np, None, 0.9)
    np.testing.assert_array_equal(batch["state"], [0, 1, 2])
    np.testing.assert_array_equal(batch["is_state_terminal"], [0, 0, 0])
    np.testing.assert_allclose(batch["discount"], [0.81, 0.81, 0.9])
    np.testing.assert_array_equal(batch["next_state"], [2, 3, 3])


def test_short_episode_and_interleaved_envs():
    rb = ReplayBuffer(num_steps=3)
    rb.append(state=10, action=0, reward=1.0, next_state=11, env_id=1)
    _fill(rb, 1, env_id=0)
    rb.stop_current_episode(env_id=1)
    rb.stop_current_episode(env_id=0)
    states = sorted(e[0]["state"] for e in rb.memory)
    assert states == [0, 10]
    assert all(len(e) == 1 for e in rb.memory)


def test_capacity_and_save_load_roundtrip(tmp_path):
    rb = ReplayBuffer(capacity=4, num_steps=2)
    _fill(rb, 7)
    assert len(rb) == 4
    path = tmp_path / "rb.pkl"
    rb.save(str(path))
    other = ReplayBuffer(capacity=4, num_steps=2)
    other.load(str(path))
    assert [e[0]["state"] for e in other.memory] == [e[0]["state"] for e in rb.memory]
    # The unfinished window survives, so the next append completes it.
    _fill(other, 1, start=7)
    assert other.memory[-1][0]["state"] == 6
    assert not list(tmp_path.glob("*.tmp"))


def test_sample_too_many_raises():
    rb = ReplayBuffer()
    _fill(rb, 2)
    with pytest.raises(ValueError, match="only 2 stored"):
        rb.sample(3)


# ---- prioritized ------------------------------------------------------------


def test_prioritized_weights_and_priorities():
    rb = PrioritizedReplayBuffer(
        capacity=8, alpha=1.0, beta0=1.0, betasteps=None, eps=0.0, error_max=None
    )
    _fill(rb, 4)
    sampled = rb.sample(4)
    assert all(
        e[0]["weight"] == pytest.approx(1.0) for e in sampled
    )  # equal priorities
    rb.update_errors([1.0, 1.0, 1.0, 1.0])
    idx = rb.last_indices.copy()
    rb.tree.set(np.arange(4), [1.0, 2.0, 3.0, 4.0])
    rb.sample(2)
    probs = rb.tree.get(rb.last_indices) / 10.0
    w = np.asarray([rb.data[i][0]["weight"] for i in rb.last_indices])
    np.testing.assert_allclose(w, (probs / 0.1) ** -1.0, rtol=1e-5)
    assert idx.shape == (4,)


def test_prioritized_priority_from_errors_and_max_priority():
    rb = PrioritizedReplayBuffer(
        capacity=8, alpha=0.5, eps=0.01, error_min=0.0, error_max=1.0
    )
    np.testing.assert_allclose(
        rb.priority_from_errors([0.0, 0.5, 3.0]), [0.1, 0.51**0.5, 1.01**0.5]
    )
    _fill(rb, 3)
    rb.sample(3)
    rb.update_errors([0.0, 0.0, 5.0])
    _fill(rb, 1, start=3)
    assert rb.tree.get([3])[0] == pytest.approx(max(1.0, 1.01**0.5))


def test_prioritized_sampling_follows_priorities_and_beta_anneals():
    rb = PrioritizedReplayBuffer(capacity=4, alpha=1.0, beta0=0.4, betasteps=10)
    _fill(rb, 4)
    rb.tree.set(np.arange(4), [0.1, 0.1, 0.1, 0.7])
    counts = np.zeros(4)
    for _ in range(500):
        rb.sample(1)
        counts[rb.last_indices] += 1
    assert counts[3] / counts.sum() == pytest.approx(0.7, abs=0.07)
    assert rb.beta == 1.0


def test_prioritized_save_load(tmp_path):
    rb = PrioritizedReplayBuffer(capacity=8)
    _fill(rb, 5)
    rb.sample(2)
    rb.update_errors([0.3, 0.9])
    rb.save(str(tmp_path / "p.pkl"))
    other = PrioritizedReplayBuffer(capacity=8)
    other.load(str(tmp_path / "p.pkl"))
    assert len(other) == 5
    np.testing.assert_allclose(other.tree.get(np.arange(5)), rb.tree.get(np.arange(5)))


# ---- episodic ---------------------------------------------------------------


def test_episodic_buffer_episodes_and_capacity():
    rb = EpisodicReplayBuffer(capacity=6)
    _fill(rb, 4, terminal_at=3)
    _fill(rb, 3, start=10)
    assert rb.n_episodes == 1 and len(rb) == 4  # second episode still open
    rb.stop_current_episode()
    _fill(rb, 2, terminal_at=21, start=20)
    # 4 + 3 + 2 > 6: the oldest episode was dropped.
    assert rb.n_episodes == 2 and len(rb) == 5
    eps = rb.sample_episodes(2, max_len=2)
    assert all(len(e) == 2 for e in eps)


# ---- updater ----------------------------------------------------------------


def test_replay_updater_schedule():
    rb = ReplayBuffer()
    calls = []
    up = ReplayUpdater(
        rb,
        calls.append,
        batchsize=2,
        episodic_update=False,
        n_times_update=2,
        replay_start_size=3,
        update_interval=4,
    )
    for t in range(1, 13):
        _fill(rb, 1, start=t)
        up.update_if_necessary(t)
    assert len(calls) == 6  # t = 4, 8, 12, two updates each
    assert all(len(c) == 2 for c in calls)
    with pytest.raises(ValueError, match="replay_start_size"):
        ReplayUpdater(rb, calls.append, 8, False, 1, 4, 1)


def test_prioritized_episodic_sampling_weights_and_capacity(tmp_path):
    rb = PrioritizedEpisodicReplayBuffer(
        capacity=7,
        alpha=1.0,
        beta0=1.0,
        betasteps=None,
        eps=0.0,
        default_priority_func=lambda ep: float(len(ep)),
    )
    _fill(rb, 1, terminal_at=0)  # priority 1
    _fill(rb, 3, terminal_at=12, start=10)  # priority 3
    counts = np.zeros(2)
    for _ in range(400):
        episodes, weights = rb.sample_episodes(1)
        counts[0 if len(episodes[0]) == 1 else 1] += 1
        rb.update_errors([float(len(episodes[0]))])  # keeps the same priorities
    assert counts[1] / counts.sum() == pytest.approx(0.75, abs=0.07)
    episodes, weights = rb.sample_episodes(2, max_len=2)
    probs = np.array([len(e) for e in rb.slots.values()], float)
    assert all(len(e) <= 2 for e in episodes)
    with pytest.raises(RuntimeError, match="update_errors"):
        rb.sample_episodes(1)
    rb.update_errors([0.5, 0.5])
    assert sorted(probs.tolist()) == [1.0, 3.0]
    _fill(rb, 4, terminal_at=23, start=20)  # 1 + 3 + 4 > 7: drop the oldest
    assert rb.n_episodes == 2 and len(rb) == 7
    rb.save(str(tmp_path / "pe.pkl"))
    other = PrioritizedEpisodicReplayBuffer(capacity=7)
    other.load(str(tmp_path / "pe.pkl"))
    assert other.n_episodes == 2 and len(other) == 7
    assert other.tree.total() == pytest.approx(rb.tree.total())
