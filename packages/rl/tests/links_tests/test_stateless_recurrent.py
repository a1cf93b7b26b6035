"""Tests of the stateless recurrent links and their state helpers."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl.action_value import DiscreteActionValue
from kusari_rl.links import (
    StatelessRecurrent,
    StatelessRecurrentBranched,
    StatelessRecurrentSequential,
    concatenate_recurrent_states,
    get_recurrent_state_at,
    is_recurrent_link,
    mask_recurrent_state_at,
)


def _net(rnn="lstm"):
    layer = {
        "lstm": L.NStepLSTM(1, 4, 5, 0.0),
        "gru": L.NStepGRU(2, 4, 5, 0.0),
        "tanh": L.NStepRNNTanh(1, 4, 5, 0.0),
    }[rnn]
    return StatelessRecurrentSequential(L.Linear(3, 4), F.relu, layer, L.Linear(5, 2))


def _seqs(lengths, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, 3)).astype(np.float32) for n in lengths]


def _allclose_state(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _allclose_state(x, y)
    else:
        np.testing.assert_allclose(
            getattr(a, "array", a), getattr(b, "array", b), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize("rnn", ["lstm", "gru", "tanh"])
def test_sequence_forward_equals_stepping_one_step_at_a_time(rnn):
    net = _net(rnn)
    seqs = _seqs([4, 1, 3])
    ys, state = net.n_step_forward(seqs, None, output_mode="split")
    assert [y.shape for y in ys] == [(4, 2), (1, 2), (3, 2)]
    for i, seq in enumerate(seqs):
        rs = None
        for t in range(len(seq)):
            y, rs = net(seq[t : t + 1], rs)
            np.testing.assert_allclose(y.array[0], ys[i].array[t], rtol=1e-5, atol=1e-6)
        # The returned state is the one after each sequence's last step.
        _allclose_state(
            get_recurrent_state_at(net, rs, 0, True),
            get_recurrent_state_at(net, state, i, True),
        )


def test_concat_output_is_the_split_output_concatenated_in_order():
    net = _net()
    seqs = _seqs([2, 5, 1])
    ys, _ = net.n_step_forward(seqs, None, output_mode="split")
    y, _ = net.n_step_forward(seqs, None, output_mode="concat")
    np.testing.assert_allclose(y.array, np.concatenate([v.array for v in ys]))


def test_a_batch_step_equals_separate_steps_and_state_carries():
    net = _net()
    x = _seqs([3])[0]
    y_batch, rs = net(x, None)
    for i in range(3):
        y_i, _ = net(x[i : i + 1], None)
        np.testing.assert_allclose(y_batch.array[i], y_i.array[0], rtol=1e-5)
    # Same input again, with the carried state: a different output.
    y_again, _ = net(x, rs)
    assert not np.allclose(y_again.array, y_batch.array)


def test_mask_resets_only_the_given_entries_to_the_initial_state():
    net = _net()
    x = _seqs([3])[0]
    _, rs = net(x, None)
    masked = mask_recurrent_state_at(net, rs, [1])
    h, c = masked[0]
    assert np.all(h.array[:, 1] == 0) and np.all(c.array[:, 1] == 0)
    _allclose_state(h.array[:, [0, 2]], rs[0][0].array[:, [0, 2]])
    # Entry 1 now behaves exactly like a fresh episode.
    y, _ = net(x, masked)
    y_fresh, _ = net(x[1:2], None)
    np.testing.assert_allclose(y.array[1], y_fresh.array[0], rtol=1e-5)
    assert mask_recurrent_state_at(net, None, [0]) is None


def test_get_and_concatenate_round_trip_with_none_as_initial_state():
    net = _net()
    x = _seqs([2])[0]
    _, rs = net(x, None)
    parts = [get_recurrent_state_at(net, rs, i, unwrap_variable=True) for i in (1, 0)]
    assert isinstance(parts[0][0][0], np.ndarray)
    assert parts[0][0][0].shape == (1, 5)  # (n_layers, out_size): no batch axis
    batched = concatenate_recurrent_states(net, [parts[0], None, parts[1]])
    h = batched[0][0]
    assert h.shape == (1, 3, 5)
    np.testing.assert_allclose(h[:, 0], rs[0][0].array[:, 1])
    np.testing.assert_allclose(h[:, 1], 0.0)
    np.testing.assert_allclose(h[:, 2], rs[0][0].array[:, 0])
    with pytest.raises(ValueError, match="expected states of shape"):
        concatenate_recurrent_states(
            net.recurrent_children[0], [(np.zeros((2, 5)),) * 2]
        )


def test_gradients_flow_through_the_sequence_and_the_initial_state():
    net = _net()
    seqs = _seqs([3, 2])
    _, rs0 = net.n_step_forward(seqs, None, "split")
    h0 = kusari.Variable(rs0[0][0].array)
    c0 = kusari.Variable(rs0[0][1].array)
    y, _ = net.n_step_forward(seqs, ((h0, c0),), "concat")
    F.sum(y).backward()
    assert net[0].W.grad is not None and np.any(net[0].W.grad != 0)
    assert h0.grad is not None and np.any(h0.grad != 0)


def test_tuple_inputs_and_outputs():
    class Split(StatelessRecurrentSequential):
        pass

    net = Split(lambda a, b: F.concat([a, b], axis=1), L.NStepGRU(1, 4, 3, 0.0))
    a = np.ones((2, 1), np.float32)
    b = np.zeros((2, 3), np.float32)
    y, rs = net((a, b), None)
    assert y.shape == (2, 3) and rs[0].shape == (1, 2, 3)


def test_branched_runs_every_child_on_the_same_sequences():
    lstm, gru = L.NStepLSTM(1, 3, 4, 0.0), L.NStepGRU(1, 3, 2, 0.0)
    net = StatelessRecurrentBranched(lstm, gru)
    seqs = _seqs([2, 3])
    out, rs = net.n_step_forward(seqs, None, "split")
    assert len(out) == 2 and out[1][0].shape == (3, 4) and out[1][1].shape == (3, 2)
    (ya, yb), rs2 = net.n_step_forward(seqs, None, "concat")
    _, _, ys_lstm = lstm(None, None, seqs)
    np.testing.assert_allclose(ya.array, np.concatenate([v.array for v in ys_lstm]))
    assert yb.shape == (5, 2)
    masked = net.mask_recurrent_state_at(rs, [0])
    assert np.all(masked[1].array[:, 0] == 0)
    got = net.get_recurrent_state_at(rs, 1, True)
    back = net.concatenate_recurrent_states([None, got])
    np.testing.assert_allclose(back[1][:, 1], rs[1].array[:, 1])
    with pytest.raises(TypeError, match="child 0 must be a recurrent link"):
        StatelessRecurrentBranched(L.Linear(2, 2))


def test_nested_containers_and_q_function_head():
    inner = StatelessRecurrentSequential(L.Linear(3, 4), L.NStepLSTM(1, 4, 4, 0.0))
    net = StatelessRecurrentSequential(
        inner, L.NStepGRU(1, 4, 3, 0.0), L.Linear(3, 2), DiscreteActionValue
    )
    assert is_recurrent_link(inner) and isinstance(net, StatelessRecurrent)
    assert len(net.recurrent_children) == 2
    av, rs = net(np.zeros((2, 3), np.float32), None)
    assert isinstance(av, DiscreteActionValue) and av.q_values.shape == (2, 2)
    # state: (inner's (lstm (h, c),), gru h)
    assert len(rs) == 2 and len(rs[0]) == 1 and len(rs[0][0]) == 2
    split = net.get_recurrent_state_at(rs, 0, True)
    again = net.concatenate_recurrent_states([split, split])
    assert again[0][0][0].shape == (1, 2, 4)
    net2 = copy.deepcopy(net)
    av2, _ = net2(np.zeros((2, 3), np.float32), None)
    np.testing.assert_allclose(av2.q_values.array, av.q_values.array)


def test_bad_arguments_name_the_function():
    net = _net()
    with pytest.raises(ValueError, match="output_mode must be 'split' or 'concat'"):
        net.n_step_forward(_seqs([1]), None, "stack")
    with pytest.raises(ValueError, match="one entry per recurrent child"):
        net.n_step_forward(_seqs([1]), (None, None), "concat")
    with pytest.raises(TypeError, match="Linear is not a recurrent link"):
        mask_recurrent_state_at(L.Linear(2, 2), np.zeros((1, 1, 2)), [0])
