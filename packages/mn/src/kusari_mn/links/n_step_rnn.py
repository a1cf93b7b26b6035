"""Stacked RNNs split over processes: the final states go to the next rank."""

from __future__ import annotations

from typing import Any

import kusari
from kusari.links.rnn.n_step_rnn import NStepRNNBase
from kusari_mn.functions.point_to_point_communication import recv, send
from kusari_mn.functions.pseudo_connect import pseudo_connect


class _MultiNodeNStepRNN(kusari.Chain):
    def __init__(
        self, link: Any, communicator: Any, rank_in: int | None, rank_out: int | None
    ) -> None:
        if not isinstance(link, NStepRNNBase):
            raise ValueError(
                "create_multi_node_n_step_rnn: link must be an NStep RNN link "
                f"(NStepLSTM, NStepGRU, ...), got {type(link).__name__}"
            )
        super().__init__()
        with self.init_scope():
            self.actual_rnn = link
        self.communicator = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = link.n_cells

    def forward(self, *inputs: Any) -> tuple[Any, ...]:
        cells: list[Any] = [None] * self.n_cells
        if self.rank_in is not None:
            # Each receive hangs off the previous one, so backward sends the
            # gradients back in reverse order: the order in which the
            # chained sends on the other rank receive them.
            delegate_in = None
            for i in range(self.n_cells):
                cells[i] = recv(
                    self.communicator, rank=self.rank_in, delegate_variable=delegate_in
                )
                delegate_in = cells[i]
        outputs = self.actual_rnn(*cells, *inputs)
        states = outputs[:-1]
        delegate = None
        if self.rank_out is not None:
            state = states[0]
            for i in range(self.n_cells):
                delegate = send(state, self.communicator, rank=self.rank_out)
                if i < self.n_cells - 1:
                    # Chain the sends so backward receives in reverse order.
                    state = pseudo_connect(delegate, states[i + 1])
        return (*outputs, delegate)


def create_multi_node_n_step_rnn(
    actual_link: Any,
    communicator: Any,
    rank_in: int | None = None,
    rank_out: int | None = None,
) -> Any:
    """Wrap a stacked RNN link for model parallelism over ranks.

    The wrapped link receives its initial states (``hx``, and ``cx`` for
    LSTMs) from ``rank_in`` (or starts from zeros when None), runs the RNN,
    and sends its final states to ``rank_out``. It returns the RNN's outputs
    plus a delegate variable (None without ``rank_out``); with ``rank_out``,
    backward starts from the delegate (see
    :func:`~kusari_mn.functions.pseudo_connect`).

    Args:
        actual_link: ``NStepLSTM``, ``NStepGRU``, ``NStepRNNTanh``, ... or
            their bidirectional versions.
        communicator: The communicator.
        rank_in: Rank sending the initial states here.
        rank_out: Rank receiving this link's final states.
    """
    return _MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)
