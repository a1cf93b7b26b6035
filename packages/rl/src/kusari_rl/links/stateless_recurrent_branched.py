"""StatelessRecurrentBranched: recurrent links sharing one input."""

from __future__ import annotations

from typing import Any

from kusari_rl.links.stateless_recurrent import (
    StatelessRecurrentChainList,
    _check_n_states,
    _check_output_mode,
    call_recurrent_link,
    is_recurrent_link,
)

__all__ = ["StatelessRecurrentBranched"]


class StatelessRecurrentBranched(StatelessRecurrentChainList):
    """Recurrent counterpart of :class:`~kusari_rl.links.Branched`.

    Every child (each a recurrent link) runs on the same input sequences; the
    output is the tuple of the children's outputs (for ``'split'``: a list with
    one tuple per sequence) and the state is the tuple of their states.

    Args:
        *links: Recurrent child links.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> net = StatelessRecurrentBranched(
        ...     L.NStepLSTM(1, 3, 4, 0.0), L.NStepGRU(1, 3, 2, 0.0))
        >>> (a, b), state = net(np.zeros((5, 3), dtype=np.float32), None)
        >>> a.shape, b.shape, len(state)
        ((5, 4), (5, 2), 2)
    """

    def __init__(self, *links: Any) -> None:
        if not links:
            raise ValueError(
                "StatelessRecurrentBranched: expected at least one child link, got none"
            )
        for i, link in enumerate(links):
            if not is_recurrent_link(link):
                raise TypeError(
                    f"StatelessRecurrentBranched: child {i} must be a recurrent link "
                    "(NStepLSTM, NStepGRU, NStepRNN* or a StatelessRecurrent), got "
                    f"{type(link).__name__}"
                )
        super().__init__(*links)

    def n_step_forward(
        self, sequences: list[Any], recurrent_state: Any, output_mode: str
    ) -> tuple[Any, Any]:
        name = type(self).__name__
        _check_output_mode(f"{name}.n_step_forward", output_mode)
        children = list(self)
        if recurrent_state is None:
            recurrent_state = (None,) * len(children)
        _check_n_states(name, children, recurrent_state)
        outs, states = [], []
        for link, rs in zip(children, recurrent_state, strict=True):
            y, new_rs = call_recurrent_link(link, sequences, rs, output_mode)
            outs.append(y)
            states.append(new_rs)
        if output_mode == "concat":
            return tuple(outs), tuple(states)
        return [tuple(per_seq) for per_seq in zip(*outs, strict=True)], tuple(states)
