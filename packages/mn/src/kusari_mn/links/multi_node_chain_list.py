"""A chain of components spread over ranks (model parallelism)."""

from __future__ import annotations

import collections
from typing import Any

import kusari
from kusari_mn.functions.point_to_point_communication import recv, send
from kusari_mn.functions.pseudo_connect import pseudo_connect


def _as_ranks(ranks: Any, what: str) -> list[int] | None:
    if ranks is None:
        return None
    if isinstance(ranks, int):
        return [ranks]
    out = list(ranks)
    if not all(isinstance(r, int) for r in out):
        raise TypeError(
            f"MultiNodeChainList.add_link: {what} must be an int, a list of "
            f"ints or None, got {ranks!r}"
        )
    return out


class MultiNodeChainList(kusari.ChainList):
    """Components that receive their inputs from, and send their outputs to,
    other ranks.

    Each component is added with ``rank_in`` (ranks it receives from; None:
    the inputs of ``forward``) and ``rank_out`` (ranks it sends to; None:
    its output is the model's output). ``forward`` runs the components in
    order, communicating with :func:`~kusari_mn.functions.send` and
    :func:`~kusari_mn.functions.recv`, and threads the delegate variables so
    that one ``backward()`` on the result runs every component's backward
    (and the matching communication) in the right order.

    Example:
        On rank 0 and rank 1 respectively::

            class Model0(kusari_mn.MultiNodeChainList):
                def __init__(self, comm):
                    super().__init__(comm)
                    self.add_link(MLP0(), rank_in=None, rank_out=1)

            class Model1(kusari_mn.MultiNodeChainList):
                def __init__(self, comm):
                    super().__init__(comm)
                    self.add_link(MLP1(), rank_in=0, rank_out=None)

    Args:
        comm: The communicator.
    """

    def __init__(self, comm: Any) -> None:
        super().__init__()
        self._comm = comm
        self._rank_inouts: list[tuple[list[int] | None, list[int] | None]] = []

    def add_link(self, link: Any, rank_in: Any = None, rank_out: Any = None) -> None:
        """Append ``link`` with the ranks it receives from and sends to."""
        ins = _as_ranks(rank_in, "rank_in")
        outs = _as_ranks(rank_out, "rank_out")
        if outs is None and any(o is None for _, o in self._rank_inouts):
            raise ValueError(
                "MultiNodeChainList.add_link: only one component may have "
                "rank_out=None (the model output)"
            )
        super().add_link(link)
        self._rank_inouts.append((ins, outs))

    def forward(self, *inputs: Any) -> Any:
        local: collections.deque[Any] = collections.deque()
        y = None
        delegate = None
        for index, (f, (rank_in, rank_out)) in enumerate(
            zip(self, self._rank_inouts, strict=True)
        ):
            if rank_in is None:
                if index == 0 or delegate is None:
                    x = f(*inputs)
                else:
                    # Keep the earlier components on this graph.
                    x = f(*_as_tuple(pseudo_connect(delegate, *inputs)))
                    delegate = None
            else:
                xs = []
                for r in rank_in:
                    if r == self._comm.rank:
                        if not local:
                            raise ValueError(
                                "MultiNodeChainList: a component receives from "
                                "its own rank but no earlier component sent to it"
                            )
                        got = local.popleft()
                        if delegate is not None:
                            got = pseudo_connect(delegate, got)
                    else:
                        got = recv(self._comm, r, delegate_variable=delegate)
                    xs.append(got)
                    # The next receive hangs off this one, so backward sends
                    # the gradients in the reverse order of the receives.
                    delegate = got if not isinstance(got, tuple) else got[0]
                delegate = None
                x = f(*xs)
            if rank_out is None:
                y = x
                delegate = x
            else:
                for r in rank_out:
                    if delegate is not None and delegate is not x:
                        x = _connect(delegate, x)
                    if r == self._comm.rank:
                        local.append(x)
                        delegate = x if not isinstance(x, tuple) else x[0]
                    else:
                        delegate = send(x, self._comm, r)
        if local:
            raise ValueError(
                "MultiNodeChainList: an output sent to this rank itself was never "
                "received; check that every rank_out has a matching rank_in"
            )
        if y is None:
            return delegate
        if y is delegate:
            return y
        return _connect(delegate, y)


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return x if isinstance(x, tuple) else (x,)


def _connect(delegate: Any, x: Any) -> Any:
    if isinstance(x, tuple):
        return pseudo_connect(delegate, *x)
    return pseudo_connect(delegate, x)
