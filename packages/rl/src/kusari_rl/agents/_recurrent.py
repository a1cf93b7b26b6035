"""Helpers shared by the agents that support recurrent models (``recurrent=True``).

A recurrent model implements :class:`~kusari_rl.links.StatelessRecurrent`:
the agent owns the hidden states (one batch for training, one for
evaluation), passes them in at every step and keeps what comes back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import kusari
from kusari_rl.links.stateless_recurrent import StatelessRecurrent

__all__ = [
    "batch_reset_recurrent_states_when_episodes_end",
    "check_recurrent_model",
    "unwrap_recurrent_state",
]


def check_recurrent_model(owner: str, model: Any, what: str = "model") -> None:
    """Fail clearly when ``recurrent=True`` is given a feed-forward model."""
    if not isinstance(model, StatelessRecurrent):
        raise TypeError(
            f"{owner}: recurrent=True needs a {what} implementing "
            "kusari_rl.links.StatelessRecurrent (e.g. "
            "StatelessRecurrentSequential(..., L.NStepLSTM(...), ...)), got "
            f"{type(model).__name__}"
        )


def unwrap_recurrent_state(state: Any) -> Any:
    """Replace the Variables of a (nested) recurrent state by their arrays.

    Acting runs without backprop, so the arrays are all there is to keep;
    plain arrays are also what snapshots pickle and replay buffers store.
    """
    if state is None:
        return None
    if isinstance(state, kusari.Variable):
        return state.array
    if isinstance(state, (tuple, list)):
        return type(state)(unwrap_recurrent_state(s) for s in state)
    return state


def batch_reset_recurrent_states_when_episodes_end(
    model: Any,
    batch_done: Any,
    batch_reset: Any,
    recurrent_states: Any,
) -> Any:
    """Zero the states of the environments whose episode just ended."""
    ended = [
        i
        for i, (done, reset) in enumerate(zip(batch_done, batch_reset))
        if done or reset
    ]
    if not ended or recurrent_states is None:
        return recurrent_states
    return unwrap_recurrent_state(
        model.mask_recurrent_state_at(recurrent_states, ended)
    )


def rollout_sequences(
    ends: Any, max_len: int | None = None
) -> list[tuple[int, int, int]]:
    """Cut a ``(T, n_envs)`` rollout into per-environment sequences.

    A sequence ends where an episode ends (``ends[t, e]``), at the end of the
    rollout, or after ``max_len`` steps.

    Returns:
        ``(env, t_start, t_stop)`` triples (``t_stop`` exclusive), env-major.
    """
    n_steps, n_envs = ends.shape
    seqs = []
    for e in range(n_envs):
        start = 0
        for t in range(n_steps):
            if ends[t, e] or t + 1 == n_steps or (max_len and t + 1 - start >= max_len):
                seqs.append((e, start, t + 1))
                start = t + 1
    return seqs


def sequence_minibatches(
    seqs: Sequence[tuple[int, int, int]], minibatch_size: int, rng: Any
) -> list[list[tuple[int, int, int]]]:
    """Shuffle sequences and deal them into minibatches of ``minibatch_size``
    steps; a sequence that overflows a minibatch is split, its remainder
    starting the next one (from the hidden state stored for that step). The
    last minibatch may be smaller."""
    batches: list[list[tuple[int, int, int]]] = []
    current: list[tuple[int, int, int]] = []
    room = minibatch_size
    for k in rng.permutation(len(seqs)):
        e, t0, t1 = seqs[int(k)]
        while t1 - t0 > 0:
            take = min(room, t1 - t0)
            current.append((e, t0, t0 + take))
            t0 += take
            room -= take
            if room == 0:
                batches.append(current)
                current, room = [], minibatch_size
    if current:
        batches.append(current)
    return batches
