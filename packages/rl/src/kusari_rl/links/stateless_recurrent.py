"""Stateless recurrent links (``chainerrl.links.StatelessRecurrent`` & co).

A *stateless* recurrent link keeps no hidden state of its own: every call
takes the recurrent state as an argument and returns the new one, so that an
agent can keep separate states for training and evaluation, store them in a
replay buffer and reset single environments of a batch.

Two calls are supported:

* ``link(x, recurrent_state)``: one time step for a batch (``x`` has a leading
  batch axis), returning ``(y, new_state)``;
* ``link.n_step_forward(sequences, recurrent_state, output_mode)``: a list of
  sequences (each with a leading time axis, lengths may differ), returning the
  outputs either as a list of sequences (``'split'``) or concatenated along
  the first axis in sequence order (``'concat'``), plus the state after the
  last step of every sequence.

Kusari's ``NStepLSTM``, ``NStepGRU``, ``NStepRNNTanh`` and ``NStepRNNReLU``
are recurrent links in this sense (their states are ``(h, c)`` or ``h`` of
shape ``(n_layers, batch, out_size)``); so is any :class:`StatelessRecurrent`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L

__all__ = [
    "StatelessRecurrent",
    "StatelessRecurrentChainList",
    "call_recurrent_link",
    "concatenate_recurrent_states",
    "concatenate_sequences",
    "get_recurrent_state_at",
    "is_recurrent_link",
    "mask_recurrent_state_at",
    "split_batched_sequences",
    "split_one_step_batch_input",
]

_OUTPUT_MODES = ("split", "concat")


def _lstm_types() -> tuple[type, ...]:
    return (L.NStepLSTM,)


def _h_only_types() -> tuple[type, ...]:
    return (L.NStepGRU, L.NStepRNNTanh, L.NStepRNNReLU)


def split_one_step_batch_input(xs: Any) -> list[Any]:
    """Turn a one-step batch into a list of length-1 sequences.

    Args:
        xs: Array or Variable with a leading batch axis, or a tuple of them.

    Returns:
        A list with one ``(1, ...)`` sequence per batch entry (tuples of them
        when ``xs`` is a tuple).
    """
    if isinstance(xs, tuple):
        return list(zip(*[split_one_step_batch_input(x) for x in xs], strict=True))
    n = len(xs)
    if n == 1:
        return [xs]
    return list(F.split_axis(xs, n, axis=0))


def is_recurrent_link(layer: Any) -> bool:
    """Whether ``layer`` is a recurrent link that the containers understand."""
    return isinstance(layer, (*_lstm_types(), *_h_only_types(), StatelessRecurrent))


def split_batched_sequences(xs: Any, sections: Any) -> list[Any]:
    """Split sequences concatenated along the first axis.

    Args:
        xs: Concatenated sequences (array, Variable or tuple of them).
        sections: Start indices of the second and later sequences.
    """
    if isinstance(xs, tuple):
        return list(
            zip(*[split_batched_sequences(x, sections) for x in xs], strict=True)
        )
    if len(sections) == 0:
        return [xs]
    if not isinstance(xs, kusari.Variable):
        # Plain arrays (inputs, not outputs of a layer): views, no graph.
        bounds = [0, *(int(i) for i in sections), len(xs)]
        return [xs[bounds[k] : bounds[k + 1]] for k in range(len(bounds) - 1)]
    return list(F.split_axis(xs, sections, axis=0))


def concatenate_sequences(sequences: Sequence[Any]) -> Any:
    """Concatenate sequences (or tuples of sequences) along the first axis."""
    if not sequences:
        raise ValueError("concatenate_sequences: expected at least one sequence")
    if isinstance(sequences[0], tuple):
        return tuple(
            F.concat([seq[i] for seq in sequences], axis=0)
            for i in range(len(sequences[0]))
        )
    if len(sequences) == 1:
        return sequences[0]
    if not any(isinstance(seq, kusari.Variable) for seq in sequences):
        # Plain arrays (e.g. replayed observations): no graph node needed.
        xp = kusari.backend.get_array_module(sequences[0])
        return xp.concatenate(sequences, axis=0)
    return F.concat(list(sequences), axis=0)


def _check_output_mode(name: str, output_mode: str) -> None:
    if output_mode not in _OUTPUT_MODES:
        raise ValueError(
            f"{name}: output_mode must be 'split' or 'concat', got {output_mode!r}"
        )


def call_recurrent_link(
    link: Any, sequences: list[Any], recurrent_state: Any, output_mode: str
) -> tuple[Any, Any]:
    """Run a recurrent link over ``sequences`` (see :class:`StatelessRecurrent`).

    Returns:
        ``(outputs, new_recurrent_state)``.
    """
    _check_output_mode("call_recurrent_link", output_mode)
    if isinstance(link, StatelessRecurrent):
        return link.n_step_forward(sequences, recurrent_state, output_mode=output_mode)
    fn: Any = link  # isinstance against a computed tuple narrows to object
    if isinstance(link, _lstm_types()):
        h, c = (None, None) if recurrent_state is None else recurrent_state
        h, c, ys = fn(h, c, list(sequences))
        new_state: Any = (h, c)
    elif isinstance(link, _h_only_types()):
        h, ys = fn(recurrent_state, list(sequences))
        new_state = h
    else:
        raise TypeError(
            f"call_recurrent_link: {type(link).__name__} is not a recurrent link "
            "(expected NStepLSTM, NStepGRU, NStepRNNTanh, NStepRNNReLU or a "
            "StatelessRecurrent)"
        )
    if output_mode == "concat":
        return concatenate_sequences(ys), new_state
    return list(ys), new_state


def _masked(h: Any, indices: Any) -> Any:
    arr = h.array if isinstance(h, kusari.Variable) else h
    if arr.ndim != 3:
        raise ValueError(
            "mask_recurrent_state_at: expected a state of shape (n_layers, batch, "
            f"out_size), got shape {arr.shape}"
        )
    xp = kusari.backend.get_array_module(arr)
    mask = xp.ones(arr.shape[1], dtype=arr.dtype)
    mask[indices] = 0
    # A product (not an in-place write) so that a state still attached to a
    # graph keeps its gradient path for the entries that are not reset.
    return h * mask[None, :, None]


def mask_recurrent_state_at(link: Any, recurrent_state: Any, indices: Any) -> Any:
    """Zero the recurrent state of the batch entries ``indices`` (new episodes)."""
    if recurrent_state is None:
        return None
    if isinstance(link, StatelessRecurrent):
        return link.mask_recurrent_state_at(recurrent_state, indices)
    if isinstance(link, _lstm_types()):
        h, c = recurrent_state
        return (_masked(h, indices), _masked(c, indices))
    if isinstance(link, _h_only_types()):
        return _masked(recurrent_state, indices)
    raise TypeError(
        f"mask_recurrent_state_at: {type(link).__name__} is not a recurrent link"
    )


def _state_at(h: Any, indices: Any, unwrap_variable: bool) -> Any:
    if unwrap_variable and isinstance(h, kusari.Variable):
        h = h.array
    if h.ndim != 3:
        raise ValueError(
            "get_recurrent_state_at: expected a state of shape (n_layers, batch, "
            f"out_size), got shape {h.shape}"
        )
    if isinstance(h, kusari.Variable):
        return h[:, indices]
    # A copy, not a view: a stored per-entry state must not keep the whole
    # batch's array alive.
    return h[:, indices].copy()


def get_recurrent_state_at(
    link: Any, recurrent_state: Any, indices: Any, unwrap_variable: bool
) -> Any:
    """Take the recurrent state of the batch entries ``indices``.

    An int index drops the batch axis (the form stored in replay buffers);
    ``unwrap_variable`` returns arrays instead of Variables.
    """
    if recurrent_state is None:
        return None
    if isinstance(link, StatelessRecurrent):
        return link.get_recurrent_state_at(recurrent_state, indices, unwrap_variable)
    if isinstance(link, _lstm_types()):
        h, c = recurrent_state
        return (
            _state_at(h, indices, unwrap_variable),
            _state_at(c, indices, unwrap_variable),
        )
    if isinstance(link, _h_only_types()):
        return _state_at(recurrent_state, indices, unwrap_variable)
    raise TypeError(
        f"get_recurrent_state_at: {type(link).__name__} is not a recurrent link"
    )


def _stack_states(link: Any, states: Sequence[Any]) -> Any:
    """Stack per-entry states (None: zeros) into ``(n_layers, batch, out)``."""
    n_layers, out_size = link.n_layers, link.out_size
    xp = link.xp
    parts = []
    for s in states:
        if s is None:
            s = xp.zeros((n_layers, 1, out_size), dtype=np.float32)
        elif s.ndim == 2:
            s = s[:, None]
        if s.shape[0] != n_layers or s.shape[-1] != out_size:
            raise ValueError(
                f"concatenate_recurrent_states: expected states of shape "
                f"({n_layers}, [batch,] {out_size}) for {type(link).__name__}, got "
                f"{s.shape}"
            )
        parts.append(s)
    if any(isinstance(p, kusari.Variable) for p in parts):
        return F.concat(parts, axis=1)
    # Plain arrays (replayed states): one concatenation, no graph nodes.
    return xp.concatenate([link.device.send(p) for p in parts], axis=1)


def concatenate_recurrent_states(
    link: Any, split_recurrent_states: Sequence[Any]
) -> Any:
    """Batch states taken by :func:`get_recurrent_state_at` (None: initial)."""
    if isinstance(link, StatelessRecurrent):
        return link.concatenate_recurrent_states(split_recurrent_states)
    if isinstance(link, _lstm_types()):
        hs = [None if s is None else s[0] for s in split_recurrent_states]
        cs = [None if s is None else s[1] for s in split_recurrent_states]
        return (_stack_states(link, hs), _stack_states(link, cs))
    if isinstance(link, _h_only_types()):
        return _stack_states(link, split_recurrent_states)
    raise TypeError(
        f"concatenate_recurrent_states: {type(link).__name__} is not a recurrent link"
    )


class StatelessRecurrent:
    """Interface of stateless recurrent links (a mixin for kusari links).

    Subclasses implement :meth:`n_step_forward` and the three state methods;
    the containers :class:`StatelessRecurrentChainList`,
    :class:`~kusari_rl.links.StatelessRecurrentSequential` and
    :class:`~kusari_rl.links.StatelessRecurrentBranched` already do.
    """

    def n_step_forward(
        self, sequences: list[Any], recurrent_state: Any, output_mode: str
    ) -> tuple[Any, Any]:
        """Run over a batch of sequences.

        Args:
            sequences: List of sequences, each an array/Variable whose first
                axis is time (or a tuple of them); lengths may differ.
            recurrent_state: Batched state, or None for the initial state.
            output_mode: ``'split'`` (list of output sequences) or
                ``'concat'`` (outputs concatenated along the first axis, in
                sequence order).

        Returns:
            ``(outputs, new_recurrent_state)``.
        """
        raise NotImplementedError

    def forward(self, x: Any, recurrent_state: Any) -> tuple[Any, Any]:
        """One time step for a batch: ``(y, new_recurrent_state)``."""
        return self.n_step_forward(
            split_one_step_batch_input(x), recurrent_state, output_mode="concat"
        )

    def mask_recurrent_state_at(self, recurrent_state: Any, indices: Any) -> Any:
        """Reset (zero) the state of the batch entries ``indices``."""
        raise NotImplementedError

    def get_recurrent_state_at(
        self, recurrent_state: Any, indices: Any, unwrap_variable: bool
    ) -> Any:
        """The state of the batch entries ``indices`` (int: no batch axis)."""
        raise NotImplementedError

    def concatenate_recurrent_states(
        self, split_recurrent_states: Sequence[Any]
    ) -> Any:
        """Batch states taken by :meth:`get_recurrent_state_at` (None: initial)."""
        raise NotImplementedError


class StatelessRecurrentChainList(StatelessRecurrent, kusari.ChainList):
    """ChainList whose state is the tuple of its recurrent children's states.

    Subclasses define :meth:`n_step_forward`; the state methods are derived
    from :attr:`recurrent_children`.
    """

    @property
    def recurrent_children(self) -> tuple[Any, ...]:
        """The recurrent children, in the order their states are kept."""
        return tuple(child for child in self.children() if is_recurrent_link(child))

    def mask_recurrent_state_at(self, recurrent_state: Any, indices: Any) -> Any:
        if recurrent_state is None:
            return None
        links = self.recurrent_children
        _check_n_states(type(self).__name__, links, recurrent_state)
        return tuple(
            mask_recurrent_state_at(link, rs, indices)
            for link, rs in zip(links, recurrent_state, strict=True)
        )

    def get_recurrent_state_at(
        self, recurrent_state: Any, indices: Any, unwrap_variable: bool
    ) -> Any:
        if recurrent_state is None:
            return None
        links = self.recurrent_children
        _check_n_states(type(self).__name__, links, recurrent_state)
        return tuple(
            get_recurrent_state_at(link, rs, indices, unwrap_variable)
            for link, rs in zip(links, recurrent_state, strict=True)
        )

    def concatenate_recurrent_states(
        self, split_recurrent_states: Sequence[Any]
    ) -> Any:
        links = self.recurrent_children
        per_entry = [
            (None,) * len(links) if s is None else s for s in split_recurrent_states
        ]
        for s in per_entry:
            _check_n_states(type(self).__name__, links, s)
        return tuple(
            concatenate_recurrent_states(link, [s[k] for s in per_entry])
            for k, link in enumerate(links)
        )


def _check_n_states(name: str, links: Sequence[Any], states: Any) -> None:
    if len(states) != len(links):
        raise ValueError(
            f"{name}: expected a recurrent state with one entry per recurrent "
            f"child ({len(links)}), got {len(states)}"
        )
