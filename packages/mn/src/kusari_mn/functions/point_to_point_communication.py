"""Differentiable send/recv between ranks, for model parallelism.

``send`` returns a *delegate variable*: calling ``backward()`` on it (or on
anything it is connected to through :func:`pseudo_connect`) receives the
gradient from the peer. ``recv``'s output sends its gradient back to the
peer in backward. Both ranks must run backward in the matching order.
"""

from __future__ import annotations

from typing import Any

from kusari import FunctionNode, backend
from kusari_mn.functions._utility import (
    as_variables,
    delegate_array,
    dummy_variable,
    grad_arrays,
)


class Send(FunctionNode):
    """Send the inputs (all but the last, a dummy) to ``peer_rank``."""

    def __init__(self, comm: Any, peer_rank: int, peer_tag: int) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self) -> str:
        return f"Send (peer_rank: {self.peer_rank})"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xs = inputs[:-1]
        self._shapes = [(x.shape, x.dtype) for x in inputs]
        self.comm.send(
            xs[0] if len(xs) == 1 else tuple(xs), self.peer_rank, self.peer_tag
        )
        return (delegate_array(backend.get_array_module(inputs[0])),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        grads = self.comm.recv(self.peer_rank, self.peer_tag)
        if not isinstance(grads, tuple):
            grads = (grads,)
        dummy_shape, dummy_dtype = self._shapes[-1]
        xp = backend.get_array_module(grads[0])
        return as_variables([*grads, xp.zeros(dummy_shape, dummy_dtype)])


class Recv(FunctionNode):
    """Receive arrays from ``peer_rank``; backward sends their gradients."""

    def __init__(self, comm: Any, peer_rank: int, peer_tag: int) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self) -> str:
        return f"Recv (peer_rank: {self.peer_rank})"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        data = self.comm.recv(self.peer_rank, self.peer_tag)
        outputs = data if isinstance(data, tuple) else (data,)
        self._outputs = [
            backend.get_array_module(y).empty(y.shape, y.dtype) for y in outputs
        ]
        self._input_like = [(x.shape, x.dtype) for x in inputs]
        return tuple(outputs)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        grads = grad_arrays(grad_outputs, self._outputs)
        self.comm.send(
            grads[0] if len(grads) == 1 else tuple(grads), self.peer_rank, self.peer_tag
        )
        xp = backend.get_array_module(grads[0])
        return as_variables([xp.zeros(s, d) for s, d in self._input_like])


def send(x: Any, communicator: Any, rank: int, tag: int = 0) -> Any:
    """Send ``x`` (a variable or a tuple of them) to ``rank``.

    Args:
        x: What to send.
        communicator: The communicator.
        rank: The receiving rank (not this one).
        tag: Message tag.

    Returns:
        A delegate variable holding the graph; its ``backward()`` receives
        the gradient of ``x`` from ``rank``.
    """
    if rank == communicator.rank:
        raise ValueError(
            f"send: rank must differ from this rank ({rank}); sending to "
            "oneself would deadlock"
        )
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    first = xs[0].array if hasattr(xs[0], "array") else xs[0]
    dummy = dummy_variable(backend.get_array_module(first))
    (delegate,) = Send(communicator, rank, tag).apply((*xs, dummy))
    delegate.name = "delegate_variable"
    return delegate


def recv(
    communicator: Any,
    rank: int,
    delegate_variable: Any = None,
    tag: int = 0,
    force_tuple: bool = False,
) -> Any:
    """Receive what ``rank`` sent with :func:`send`.

    Args:
        communicator: The communicator.
        rank: The sending rank (not this one).
        delegate_variable: The delegate of an earlier part of this rank's
            graph, so that one ``backward()`` reaches both parts.
        tag: Message tag.
        force_tuple: Return a tuple even for one array.

    Returns:
        The received variable (or tuple); its gradient goes back to ``rank``.
    """
    if rank == communicator.rank:
        raise ValueError(
            f"recv: rank must differ from this rank ({rank}); receiving from "
            "oneself would deadlock"
        )
    inputs = (dummy_variable(),) if delegate_variable is None else (delegate_variable,)
    ys = Recv(communicator, rank, tag).apply(inputs)
    if len(ys) == 1 and not force_tuple:
        return ys[0]
    return ys
