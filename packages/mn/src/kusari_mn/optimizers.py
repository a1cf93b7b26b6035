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

from mpi4py import MPI

from kusari import grad_destinations
from kusari_mn.communicators._mean_grad import GradMeanMixin
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


def _param_snapshot(
    link: Any,
) -> tuple[list[tuple[str, tuple[int, ...]]], Any]:
    """The names and shapes of ``link``'s initialized parameters, and what
    :func:`_unchanged` needs to tell later, without a walk, that they are
    the same (None for a link without ``param_set_version``)."""
    signature = []
    arrays = []
    for name, p in link.namedparams():
        array = p.array
        if array is not None:
            signature.append((name, tuple(array.shape)))
        arrays.append((p, array, None if array is None else array.shape))
    version = getattr(link, "param_set_version", None)
    if version is None:
        return signature, None
    return signature, (weakref.ref(link), version, arrays)


def _unchanged(link: Any, seen: Any) -> bool:
    """Whether ``link``'s initialized parameters are still those of
    snapshot ``seen``: no parameter or child added, removed or replaced
    (``param_set_version``), and every parameter holding the same array
    with the same shape (a lazily initialized one getting its array
    replaces None)."""
    if seen is None:
        return False
    ref, version, arrays = seen
    if ref() is not link or link.param_set_version != version:
        return False
    for p, array, shape in arrays:
        now = p.array
        if now is not array or (now is not None and now.shape != shape):
            return False
    return True


def _backward(
    optimizer: Any,
    lossfun: Callable[..., Any],
    args: Any,
    kwds: Any,
    grads: GradBuffer | None = None,
) -> None:
    """Same steps as GradientMethod.update with a loss function, which has
    to be split here so the averaging fits between backward and update.

    With ``grads`` (the buffer the averaging that follows reduces), backward
    writes each gradient into its view of the buffer as it is computed
    (``grad_destinations``): then the averaging reduces the buffer as it is,
    the same work as when the gradients are left in place, instead of
    reading every new gradient array from wherever backward put it (on the
    development machine that cost the averaging of the MNIST MLP 1.6-2.5x
    a plain Allreduce; docs/mn-scaling.md).
    """
    loss = lossfun(*args, **kwds)
    if getattr(optimizer, "_use_cleargrads", True):
        optimizer.target.cleargrads()
    else:
        optimizer.target.zerograds()
    loss_scale = getattr(optimizer, "loss_scale", None)
    dests = None if grads is None else grads.destinations(optimizer.target)
    if dests:
        with grad_destinations(dests):
            loss.backward(loss_scale=loss_scale)
    else:
        loss.backward(loss_scale=loss_scale)
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
        object.__setattr__(self, "_seen", None)
        # Backward writes the gradients into the averaging's buffer (see
        # _backward); False hands them out as new arrays, as kusari does
        # (for comparisons).
        object.__setattr__(self, "_use_destinations", True)

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
            self._remember(*_param_snapshot(link))
        return self

    def _remember(self, signature: list[Any], seen: Any) -> None:
        object.__setattr__(self, "target_params", signature)
        object.__setattr__(self, "_seen", seen)

    def is_changed(self, target: Any) -> bool:
        """True (and remembered) when the set of initialized parameters changed.

        While ``target.param_set_version`` and every parameter's array stay
        the same, this is answered without walking the model.
        """
        if _unchanged(target, self._seen):
            return False
        params, seen = _param_snapshot(target)
        object.__setattr__(self, "_seen", seen)
        if params != self.target_params:
            object.__setattr__(self, "target_params", params)
            return True
        return False

    def _mean_grad_or_resync(self, target: Any) -> bool:
        """Average the gradients, unless the parameter set changed on some
        rank; then return True on every rank (broadcast instead).

        A rank deciding alone would broadcast while the others average when
        only some ranks' lazily initialized links got their weights, and the
        job would hang in mismatched collectives. On an MPI communicator the
        rank whose set changed says so in the flag of the gradient reduction
        itself (no collective of its own per step); when any rank changed,
        the ranks compare their parameter sets and all raise the same error
        if they differ.
        """
        changed = self.is_changed(target)
        comm = self.communicator
        if not isinstance(comm, MpiCommunicatorBase):
            if not changed:
                comm.multi_node_mean_grad(target, self.zero_fill)
            return changed
        if type(comm).multi_node_mean_grad is GradMeanMixin.multi_node_mean_grad:
            resync = comm._mean_grad(target, self.zero_fill, changed)
        else:
            # A communicator with an averaging of its own (dummy, a user's
            # subclass): the flag takes a 4-byte Allreduce of its own.
            resync = comm._on_any_rank(changed)
            if not resync:
                comm.multi_node_mean_grad(target, self.zero_fill)
        if resync:
            self._check_same_params(comm)
        return resync

    def _check_same_params(self, comm: Any) -> None:
        """Raise on every rank unless all ranks have the same initialized
        parameters (collective: one allgather)."""
        signatures = comm.mpi_comm.allgather(self.target_params)
        if any(sig != signatures[0] for sig in signatures):
            self._remember([], None)  # compare again next time
            counts = ", ".join(
                f"rank {i}: {len(sig)}" for i, sig in enumerate(signatures)
            )
            raise ValueError(
                "MultiNodeOptimizer.update: the ranks have different initialized "
                f"parameters (counts {counts}); a lazily initialized link must get "
                "its weights on every rank in the same step (run the same first "
                "forward pass everywhere)"
            )

    def _destination_buffer(self) -> GradBuffer | None:
        """The gradient buffer the next averaging reduces, for backward to
        write into (None: backward hands out new arrays)."""
        grads = getattr(self.communicator, "_grads", None)
        if not self._use_destinations or not isinstance(grads, GradBuffer):
            return None
        return grads

    def update(
        self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any
    ) -> None:
        """Backprop (with ``lossfun``), average the gradients, update.

        With ``lossfun``, backward writes each gradient straight into the
        communicator's gradient buffer (after the first update), so the
        gradients of the previous update, which are views of that buffer,
        change during backward rather than during the averaging: keep a
        copy of a gradient that is needed longer than one step.

        A call after the set of parameters changed (e.g. a lazily
        initialized link got its weights) broadcasts rank 0's parameters
        instead of updating, so every rank continues from the same weights.
        """
        target = self.actual_optimizer.target
        if lossfun is not None:
            _backward(
                self.actual_optimizer, lossfun, args, kwds, self._destination_buffer()
            )
        if self._mean_grad_or_resync(target):
            self.communicator.bcast_data(target)
        else:
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
            # this step's buffer; the other one is still being reduced
            dest = self._buffers[0] if self._use_destinations else None
            _backward(self.actual_optimizer, lossfun, args, kwds, dest)
        comm = self.communicator
        changed = self.is_changed(target)
        grads = self._buffers[0]
        params = grads.select(target, self.zero_fill)
        # the parameter-set change rides on the layout agreement's Allreduce
        if comm._load_agreed(grads, params, 1.0 / comm.size, changed):
            self._check_same_params(comm)
            self._wait_pending()
            comm.bcast_data(target)
            return
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
