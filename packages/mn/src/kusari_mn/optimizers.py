"""Multi-node optimizers: average the gradients over the ranks, then update.

:func:`create_multi_node_optimizer` wraps any kusari optimizer. The wrapper
forwards every attribute to the wrapped optimizer, so hooks, hyperparameters
and serialization behave as before; only :meth:`update` changes.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable
from typing import Any

from mpi4py import MPI

from kusari_mn.communicators._memory_utility import GradBuffer
from kusari_mn.communicators._reduction import sum_op_and_type
from kusari_mn.communicators.mpi_communicator_base import MpiCommunicatorBase

# Every non-blocking reduction not yet waited for, with the buffer MPI
# writes into. Held here, not only by the optimizer, so that the buffer
# outlives an optimizer dropped mid-flight (a training function that
# returned): freeing it would let MPI write into freed memory while it
# finishes the reduction inside MPI_Finalize (a segfault at exit).
_IN_FLIGHT: dict[int, tuple[Any, Any]] = {}


def _finish_in_flight() -> None:
    if MPI.Is_finalized():
        return
    while _IN_FLIGHT:
        _, (request, _buffers) = _IN_FLIGHT.popitem()
        request.wait()


# atexit runs this before mpi4py's own finalizer, which was registered
# earlier (when mpi4py was imported above).
atexit.register(_finish_in_flight)


def _param_signature(link: Any) -> list[tuple[str, tuple[int, ...]]]:
    return [
        (name, tuple(p.array.shape))
        for name, p in link.namedparams(include_uninit=False)
    ]


def _backward(
    optimizer: Any, lossfun: Callable[..., Any], args: Any, kwds: Any
) -> None:
    # Same steps as GradientMethod.update with a loss function, which has
    # to be split here so the averaging fits between backward and update.
    loss = lossfun(*args, **kwds)
    if getattr(optimizer, "_use_cleargrads", True):
        optimizer.target.cleargrads()
    else:
        optimizer.target.zerograds()
    loss.backward(loss_scale=getattr(optimizer, "loss_scale", None))
    del loss


class _MultiNodeOptimizer:
    """Averages gradients over the ranks before each update."""

    def __init__(
        self, actual_optimizer: Any, communicator: Any, zero_fill: bool
    ) -> None:
        object.__setattr__(self, "actual_optimizer", actual_optimizer)
        object.__setattr__(self, "communicator", communicator)
        object.__setattr__(self, "zero_fill", zero_fill)
        object.__setattr__(self, "target_params", [])

    def __repr__(self) -> str:
        return f"MultiNodeOptimizer({self.actual_optimizer!r})"

    def setup(self, link: Any) -> Any:
        """Set up the wrapped optimizer and give every rank rank 0's weights.

        Broadcasting here (rather than at the first update, as ChainerMN
        does) keeps the first update: a job restarted from a snapshot then
        performs exactly the updates of an uninterrupted one. Parameters
        still uninitialized here are broadcast at the first update after
        they appear, which then only synchronizes.
        """
        self.actual_optimizer.setup(link)
        if all(p.array is not None for p in link.params()):
            self.communicator.bcast_data(link)
            object.__setattr__(self, "target_params", _param_signature(link))
        return self

    def is_changed(self, target: Any) -> bool:
        """True (and remembered) when the set of initialized parameters changed."""
        params = _param_signature(target)
        if params != self.target_params:
            object.__setattr__(self, "target_params", params)
            return True
        return False

    def _changed_on_any_rank(self, target: Any) -> bool:
        """Whether to broadcast instead of averaging, decided by all ranks.

        A rank deciding alone would broadcast while the others average when
        only some ranks' lazily initialized links got their weights, and
        the job would hang in mismatched collectives. One 4-byte Allreduce
        per step settles it; when any rank changed, the ranks compare their
        parameter sets and all raise the same error if they differ.
        """
        changed = self.is_changed(target)
        comm = self.communicator
        if not isinstance(comm, MpiCommunicatorBase):
            return changed
        if not comm._on_any_rank(changed):
            return False
        signatures = comm.mpi_comm.allgather(self.target_params)
        if any(sig != signatures[0] for sig in signatures):
            object.__setattr__(self, "target_params", [])  # compare again next time
            counts = ", ".join(
                f"rank {i}: {len(sig)}" for i, sig in enumerate(signatures)
            )
            raise ValueError(
                "MultiNodeOptimizer.update: the ranks have different initialized "
                f"parameters (counts {counts}); a lazily initialized link must get "
                "its weights on every rank in the same step (run the same first "
                "forward pass everywhere)"
            )
        return True

    def update(
        self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any
    ) -> None:
        """Backprop (with ``lossfun``), average the gradients, update.

        A call after the set of parameters changed (e.g. a lazily
        initialized link got its weights) broadcasts rank 0's parameters
        instead of updating, so every rank continues from the same weights.
        """
        target = self.actual_optimizer.target
        if lossfun is not None:
            _backward(self.actual_optimizer, lossfun, args, kwds)
        if self._changed_on_any_rank(target):
            self.communicator.bcast_data(target)
        else:
            self.communicator.multi_node_mean_grad(target, self.zero_fill)
            self.actual_optimizer.update(None, *args, **kwds)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.actual_optimizer, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_optimizer, name, value)


class _DoubleBufferingOptimizer(_MultiNodeOptimizer):
    """Overlaps the gradient Allreduce of step ``t`` with step ``t + 1``.

    Each update starts a non-blocking Allreduce of this step's gradients
    and applies the averaged gradients of the previous step, so the update
    lags one step behind (the first update after a broadcast only starts
    the reduction). Two gradient buffers take turns.
    """

    def __init__(
        self, actual_optimizer: Any, communicator: Any, zero_fill: bool
    ) -> None:
        if not isinstance(communicator, MpiCommunicatorBase):
            raise ValueError(
                "create_multi_node_optimizer: double_buffering needs an MPI "
                f"communicator, got {type(communicator).__name__}"
            )
        super().__init__(actual_optimizer, communicator, zero_fill)
        dtype = communicator.allreduce_grad_dtype
        object.__setattr__(self, "_buffers", [GradBuffer(dtype), GradBuffer(dtype)])
        object.__setattr__(self, "_pending", None)

    def update(
        self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any
    ) -> None:
        target = self.actual_optimizer.target
        if lossfun is not None:
            _backward(self.actual_optimizer, lossfun, args, kwds)
        comm = self.communicator
        if self._changed_on_any_rank(target):
            self._wait_pending()
            comm.bcast_data(target)
            return
        grads = self._buffers[0]
        params = grads.select(target, self.zero_fill)
        comm._load_agreed(grads, params, 1.0 / comm.size)
        if any(group.on_device for group in grads.groups):
            raise ValueError(
                "create_multi_node_optimizer: double_buffering over MPI supports "
                "host (NumPy) parameters only"
            )
        previous = self._wait_pending()
        requests = []
        for group in grads.groups:
            op, mpi_type = sum_op_and_type(group.wire)
            requests.append(
                comm.mpi_comm.Iallreduce(MPI.IN_PLACE, [group.wire, mpi_type], op)
            )
        _IN_FLIGHT[id(grads)] = (_Requests(requests), grads)
        object.__setattr__(self, "_pending", (grads, params))
        object.__setattr__(self, "_buffers", [self._buffers[1], grads])
        if previous is not None:
            prev_grads, prev_params = previous
            prev_grads.store(prev_params)
            self.actual_optimizer.update(None, *args, **kwds)

    def _wait_pending(self) -> tuple[GradBuffer, Any] | None:
        pending = self._pending
        if pending is None:
            return None
        grads, params = pending
        entry = _IN_FLIGHT.pop(id(grads), None)
        if entry is not None:
            entry[0].wait()
        object.__setattr__(self, "_pending", None)
        return grads, params

    def wait(self) -> None:
        """Finish the outstanding Allreduce (its gradients are dropped)."""
        self._wait_pending()


class _Requests:
    """The requests of one step's reductions (one per gradient dtype)."""

    def __init__(self, requests: list[Any]) -> None:
        self.requests = requests

    def wait(self) -> None:
        MPI.Request.Waitall(self.requests)


def create_multi_node_optimizer(
    actual_optimizer: Any,
    communicator: Any,
    double_buffering: bool = False,
    zero_fill: bool = True,
) -> Any:
    """Wrap an optimizer so that each update uses the mean gradient of all ranks.

    Args:
        actual_optimizer: A set-up kusari optimizer.
        communicator: A kusari_mn communicator.
        double_buffering: Overlap the Allreduce of one step with the next
            step's computation, updating with gradients one step old (host
            parameters on an MPI communicator).
        zero_fill: Average a None gradient as zeros (see
            :meth:`~kusari_mn.CommunicatorBase.multi_node_mean_grad`).

    Returns:
        The wrapped optimizer; use it wherever the original was used.

    Example:
        >>> optimizer = kusari_mn.create_multi_node_optimizer(
        ...     kusari.optimizers.Adam(), comm)  # doctest: +SKIP
        >>> optimizer.setup(model)  # doctest: +SKIP
    """
    if double_buffering:
        return _DoubleBufferingOptimizer(actual_optimizer, communicator, zero_fill)
    return _MultiNodeOptimizer(actual_optimizer, communicator, zero_fill)
