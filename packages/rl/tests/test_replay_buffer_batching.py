"""batch_experiences: vectorised n-step sums, the column fast path, recurrence."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

import kusari
from kusari_rl.replay_buffer import batch_experiences, batch_recurrent_experiences
from kusari_rl.replay_buffers import ReplayBuffer, _columns
from kusari_rl.replay_buffers._columns import SampledExperiences


def _reference(experiences, gamma):
    """The obvious per-transition batching, to compare against."""
    first = [e[0] for e in experiences]
    last = [e[-1] for e in experiences]
    out = {
        "state": np.asarray([t["state"] for t in first]),
        "action": np.asarray([t["action"] for t in first]),
        "reward": np.asarray(
            [sum(gamma**i * t["reward"] for i, t in enumerate(e)) for e in experiences],
            np.float32,
        ),
        "next_state": np.asarray([t["next_state"] for t in last]),
        "is_state_terminal": np.asarray(
            [any(t["is_state_terminal"] for t in e) for e in experiences], np.float32
        ),
        "discount": np.asarray([gamma ** len(e) for e in experiences], np.float32),
    }
    if all(t.get("next_action") is not None for t in last):
        out["next_action"] = np.asarray([t["next_action"] for t in last])
    return out


def _assert_same(batch, ref):
    assert set(batch) == set(ref)
    for k in ref:
        got = np.asarray(batch[k])
        assert got.dtype == ref[k].dtype, k
        np.testing.assert_allclose(got, ref[k], rtol=1e-6, err_msg=k)


def _fill(
    rb,
    n,
    obs_dim=3,
    action=lambda rng: rng.standard_normal(1).astype(np.float32),
    next_action=True,
    episode=17,
    seed=0,
):
    rng = np.random.default_rng(seed)
    for i in range(n):
        rb.append(
            state=rng.standard_normal(obs_dim).astype(np.float32),
            action=action(rng),
            reward=float(rng.standard_normal()),
            next_state=rng.standard_normal(obs_dim).astype(np.float32),
            next_action=action(rng) if next_action and i % 5 else None,
            is_state_terminal=i % episode == episode - 1,
        )
        if i % episode == episode - 1:
            rb.stop_current_episode()


@pytest.mark.parametrize("num_steps", [1, 3])
def test_matches_the_per_transition_reference(num_steps):
    rb = ReplayBuffer(500, num_steps=num_steps)
    _fill(rb, 400)
    for _ in range(5):
        sample = rb.sample(64)
        _assert_same(batch_experiences(sample, np, None, 0.9), _reference(sample, 0.9))
        # The same experiences as a plain list take the ordinary path.
        _assert_same(
            batch_experiences(list(sample), np, None, 0.9), _reference(sample, 0.9)
        )


@pytest.mark.parametrize(
    "capacity, n", [(50, 173), (None, 2500)], ids=["ring-wraps", "unbounded-grows"]
)
def test_columns_serve_the_sample_and_agree(capacity, n):
    rb = ReplayBuffer(capacity)
    _fill(rb, n)
    sample = rb.sample(40)
    assert isinstance(sample, SampledExperiences)
    assert rb._columns.gather(sample, sample.slots) is not None
    _assert_same(
        batch_experiences(sample, np, lambda x: x, 0.99), _reference(sample, 0.99)
    )


def test_discrete_actions_mixing_python_and_numpy_ints():
    rb = ReplayBuffer(100)
    _fill(
        rb,
        60,
        action=lambda rng: (
            int(rng.integers(3)) if rng.random() < 0.5 else np.int64(rng.integers(3))
        ),
    )
    sample = rb.sample(30)
    assert rb._columns.gather(sample, sample.slots) is not None
    batch = batch_experiences(sample, np, None, 0.9)
    _assert_same(batch, _reference(sample, 0.9))
    assert batch["action"].dtype == np.int64


def test_sampling_draws_the_same_items_as_the_plain_queue():
    rb = ReplayBuffer(80)
    _fill(rb, 200)
    random.seed(3)
    a = rb.sample(20)
    random.seed(3)
    b = rb.memory.sample(20)
    assert [x[0] is y[0] for x, y in zip(a, b)] == [True] * 20


def test_a_transition_that_does_not_fit_turns_the_columns_off():
    rb = ReplayBuffer(100)
    _fill(rb, 30)
    rb.append(
        state=np.zeros(4, np.float32),
        action=np.zeros(1, np.float32),
        reward=0.0,
        next_state=np.zeros(4, np.float32),
    )
    assert rb._columns.broken
    _fill(rb, 30, seed=1)
    sample = rb.sample(20)
    assert not isinstance(sample, SampledExperiences)


def test_columns_refuse_transitions_they_did_not_copy():
    rb = ReplayBuffer(100)
    _fill(rb, 50)
    random.seed(0)
    sample = rb.sample(10)
    # Replace a stored transition behind the buffer's back.
    slot = int(sample.slots[0])
    old = rb.memory._data[slot][0]
    rb.memory._data[slot] = [dict(old, reward=123.0)]
    random.seed(0)
    sample = rb.sample(10)
    assert rb._columns.gather(sample, sample.slots) is None
    batch = batch_experiences(sample, np, None, 0.9)
    assert 123.0 in batch["reward"]


def test_columns_are_rebuilt_after_load_pickle_and_deepcopy(tmp_path):
    rb = ReplayBuffer(64)
    _fill(rb, 100)
    rb.save(str(tmp_path / "rb.pkl"))
    loaded = ReplayBuffer(64)
    loaded.load(str(tmp_path / "rb.pkl"))
    for other in (loaded, pickle.loads(pickle.dumps(rb)), copy.deepcopy(rb)):
        sample = other.sample(32)
        assert other._columns.gather(sample, sample.slots) is not None
        _assert_same(batch_experiences(sample, np, None, 0.9), _reference(sample, 0.9))


def test_large_observations_skip_the_columns(monkeypatch):
    monkeypatch.setattr(_columns, "MAX_BYTES", 10_000)
    rb = ReplayBuffer(10**6)
    _fill(rb, 10, obs_dim=1000)
    assert rb._columns.broken
    sample = rb.sample(5)
    _assert_same(batch_experiences(sample, np, None, 0.9), _reference(sample, 0.9))


def test_custom_phi_and_weights_take_the_ordinary_path():
    rb = ReplayBuffer(100)
    _fill(rb, 50)
    sample = rb.sample(8)
    batch = batch_experiences(sample, np, lambda x: x * 2, 0.9)
    np.testing.assert_allclose(batch["state"], 2 * _reference(sample, 0.9)["state"])
    for e in sample:
        e[0]["weight"] = 0.5
    batch = batch_experiences(sample, np, None, 0.9)
    np.testing.assert_allclose(batch["weights"], 0.5)


def test_device_transfer_and_empty_input():
    rb = ReplayBuffer(100)
    _fill(rb, 50)
    sample = rb.sample(8)
    batch = batch_experiences(sample, kusari.get_device("@numpy"), None, 0.9)
    _assert_same(batch, _reference(sample, 0.9))
    with pytest.raises(ValueError, match="batch_experiences: expected at least one"):
        batch_experiences([], np, None, 0.9)


def test_recurrent_batch_layout():
    class Model:
        def concatenate_recurrent_states(self, states):
            return list(states)

    def tr(i, rs=None):
        return {
            "state": np.full(2, i, np.float32),
            "action": i,
            "reward": float(i),
            "next_state": np.full(2, i + 1, np.float32),
            "next_action": None,
            "is_state_terminal": i == 4,
            "recurrent_state": rs,
            "next_recurrent_state": ("after", i),
        }

    episodes = [[tr(0, "s0"), tr(1), tr(2)], [tr(3, "s3"), tr(4)]]
    batch = batch_recurrent_experiences(episodes, Model(), np, None, 0.5)
    assert [s[:, 0].tolist() for s in batch["state"]] == [[0, 1, 2], [3, 4]]
    assert [s[:, 0].tolist() for s in batch["next_state"]] == [[1, 2, 3], [4, 5]]
    assert batch["action"].tolist() == [0, 1, 2, 3, 4]
    assert batch["reward"].tolist() == [0, 1, 2, 3, 4]
    assert batch["is_state_terminal"].tolist() == [0, 0, 0, 0, 1]
    assert batch["discount"].tolist() == [0.5] * 5
    assert batch["recurrent_state"] == ["s0", "s3"]
    assert batch["next_recurrent_state"] == [("after", 0), ("after", 3)]
    with pytest.raises(ValueError, match="expected non-empty sequences"):
        batch_recurrent_experiences([[]], Model(), np, None, 0.5)


@pytest.mark.parametrize(
    "capacity, n", [(60, 173), (None, 400)], ids=["ring-wraps", "unbounded-grows"]
)
def test_nstep_columns_give_the_per_transition_arrays_bit_for_bit(capacity, n):
    rb = ReplayBuffer(capacity, num_steps=3)
    # Episodes of 17 steps end terminally; a truncation (stop without a
    # terminal) every 40 steps leaves short tails that still bootstrap.
    rng = np.random.default_rng(1)
    for i in range(n):
        rb.append(
            state=rng.standard_normal(3).astype(np.float32),
            action=int(rng.integers(2)),
            reward=float(rng.standard_normal()),
            next_state=rng.standard_normal(3).astype(np.float32),
            is_state_terminal=i % 17 == 16,
        )
        if i % 17 == 16 or i % 40 == 39:
            rb.stop_current_episode()
    for _ in range(4):
        sample = rb.sample(48)
        assert {len(e) for e in sample} == {1, 2, 3}
        # batch_experiences takes the per-transition path for n-step rows.
        assert rb._columns.gather(sample, sample.slots) is None
        fast = rb._columns.nstep_batch(sample, 0.97)
        slow = batch_experiences(sample, np, None, 0.97)
        assert set(fast) == set(slow) == set(_reference(sample, 0.97))
        for key in slow:
            assert fast[key].dtype == slow[key].dtype, key
            np.testing.assert_array_equal(fast[key], slow[key], err_msg=key)


def test_nstep_columns_refuse_experiences_they_did_not_copy():
    rb = ReplayBuffer(100, num_steps=2)
    _fill(rb, 50)
    random.seed(0)
    sample = rb.sample(10)
    assert rb._columns.nstep_batch(sample, 0.9) is not None
    slot = int(sample.slots[0])
    rb.memory._data[slot] = [dict(t, reward=123.0) for t in rb.memory._data[slot]]
    random.seed(0)
    sample = rb.sample(10)
    assert rb._columns.nstep_batch(sample, 0.9) is None
    # Not a sample of the buffer's (no slots): no column path either.
    assert rb._columns.nstep_batch(list(sample), 0.9) is None


def test_one_step_columns_have_no_nstep_batch():
    rb = ReplayBuffer(100)
    _fill(rb, 50)
    assert rb._columns.nstep_batch(rb.sample(10), 0.9) is None
