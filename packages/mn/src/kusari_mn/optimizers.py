"""Multi-node optimizers: average the gradients over the ranks, then update.

:func:`create_multi_node_optimizer` wraps any kusari optimizer. The wrapper
forwards every attribute to the wrapped optimizer, so hooks, hyperparameters
and serialization behave as before; only :meth:`update` changes.
"""

from __future__ import annotations

import atexit
import weakref
from collections.abc import Callable
from typing import Any

import numpy
from mpi4py import MPI

from kusari_mn.communicators._memory_utility import GradPacker
from kusari_mn.communicators.mpi_communicator_base import (
    MpiCommunicatorBase,
    _sum_op_and_type,
)


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
        if self.is_changed(target):
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
    the reduction).
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
        object.__setattr__(self, "_packers", [GradPacker(dtype), GradPacker(dtype)])
        object.__setattr__(self, "_pending", None)
        # A reduction still in flight when the interpreter exits would be
        # torn down under MPI's feet (a segfault at MPI_Finalize): finish it
        # first. atexit runs this before mpi4py's own finalizer, which was
        # registered earlier, at import.
        atexit.register(_finish_at_exit, weakref.ref(self))

    def update(
        self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any
    ) -> None:
        target = self.actual_optimizer.target
        if lossfun is not None:
            _backward(self.actual_optimizer, lossfun, args, kwds)
        comm = self.communicator
        if self.is_changed(target):
            self._wait_pending()
            comm.bcast_data(target)
            return
        packer = self._packers[0]
        params = packer.select(target, self.zero_fill)
        if packer.prepare(params):
            comm._check_layout(packer)
        if any(not isinstance(p.array, numpy.ndarray) for _, p in params):
            raise ValueError(
                "create_multi_node_optimizer: double_buffering over MPI supports "
                "host (NumPy) parameters only"
            )
        packer.pack(params, 1.0 / comm.size)
        previous = self._wait_pending()
        op, mpi_type = _sum_op_and_type(packer.buffer)
        request = comm.mpi_comm.Iallreduce(MPI.IN_PLACE, [packer.buffer, mpi_type], op)
        object.__setattr__(self, "_pending", (request, packer, params))
        object.__setattr__(self, "_packers", [self._packers[1], packer])
        if previous is not None:
            prev_packer, prev_params = previous
            prev_packer.hand_out(prev_params)
            self.actual_optimizer.update(None, *args, **kwds)

    def _wait_pending(self) -> tuple[GradPacker, Any] | None:
        pending = self._pending
        if pending is None:
            return None
        request, packer, params = pending
        request.Wait()
        object.__setattr__(self, "_pending", None)
        return packer, params

    def wait(self) -> None:
        """Finish the outstanding Allreduce (its gradients are dropped)."""
        self._wait_pending()


def _finish_at_exit(ref: Any) -> None:
    optimizer = ref()
    if optimizer is not None and not MPI.Is_finalized():
        optimizer._wait_pending()


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
