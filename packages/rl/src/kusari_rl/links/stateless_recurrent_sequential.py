"""StatelessRecurrentSequential: a Sequential that may hold recurrent links."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
from kusari_rl.links.stateless_recurrent import (
    StatelessRecurrentChainList,
    _check_n_states,
    _check_output_mode,
    call_recurrent_link,
    concatenate_sequences,
    is_recurrent_link,
    split_batched_sequences,
)

__all__ = ["StatelessRecurrentSequential"]


class StatelessRecurrentSequential(StatelessRecurrentChainList, kusari.Sequential):
    """``kusari.Sequential`` with recurrent layers and explicit states.

    Layers are applied in order. Recurrent layers (``NStepLSTM`` & co, or
    any :class:`~kusari_rl.links.StatelessRecurrent`) run over the list of
    sequences; between them, the other layers run once on all time steps of
    all sequences concatenated, which is much faster than per sequence. The
    recurrent state is the tuple of the recurrent layers' states.

    Args:
        *layers: Links and callables, as for ``kusari.Sequential``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> import kusari.links as L
        >>> net = StatelessRecurrentSequential(
        ...     L.Linear(3, 8), F.relu, L.NStepLSTM(1, 8, 8, 0.0), L.Linear(8, 2))
        >>> y, state = net(np.zeros((4, 3), dtype=np.float32), None)
        >>> y.shape, state[0][0].shape
        ((4, 2), (1, 4, 8))
    """

    @property
    def recurrent_children(self) -> tuple[Any, ...]:
        # The order of evaluation, which for Sequential is that of its
        # layers (children() may list links in another order).
        return tuple(layer for layer in self._layers if is_recurrent_link(layer))

    def n_step_forward(
        self, sequences: list[Any], recurrent_state: Any, output_mode: str
    ) -> tuple[Any, Any]:
        name = type(self).__name__
        _check_output_mode(f"{name}.n_step_forward", output_mode)
        if not sequences:
            raise ValueError(f"{name}.n_step_forward: expected at least one sequence")
        n_recurrent = len(self.recurrent_children)
        if recurrent_state is None:
            states: list[Any] = [None] * n_recurrent
        else:
            _check_n_states(name, self.recurrent_children, recurrent_state)
            states = list(recurrent_state)
        lengths = [len(s[0]) if isinstance(s, tuple) else len(s) for s in sequences]
        sections = np.cumsum(lengths[:-1])
        new_states: list[Any] = []
        h: Any = list(sequences)
        split = True
        for layer in self._layers:
            if is_recurrent_link(layer):
                if not split:
                    h = split_batched_sequences(h, sections)
                    split = True
                h, rs = call_recurrent_link(
                    layer, h, states[len(new_states)], output_mode="split"
                )
                new_states.append(rs)
            else:
                if split:
                    h = concatenate_sequences(h)
                    split = False
                h = layer(*h) if isinstance(h, tuple) else layer(h)
        if output_mode == "split" and not split:
            h = split_batched_sequences(h, sections)
        elif output_mode == "concat" and split:
            h = concatenate_sequences(h)
        return h, tuple(new_states)
