"""Gradient averaging for the MPI communicators: ``multi_node_mean_grad``.

The gradients of a model live in persistent flat buffers, one per dtype
(``_memory_utility.py``); each is averaged over the ranks in one collective,
either the ring with the division fused into it (``_ring.py``) or a scaling
pass and one in-place ``Allreduce``. Every reduced buffer carries one extra
element, the flag with which a rank whose gradient layout changed tells the
others in the same collective, so that a mismatch becomes the same error on
every rank instead of ranks waiting in different collectives.
"""

from __future__ import annotations

from typing import Any

import numpy
from mpi4py import MPI

from kusari_mn.communicators._memory_utility import GradBuffer, GradGroup
from kusari_mn.communicators._reduction import HalfAllreduce, allreduce_sum
from kusari_mn.communicators._ring import MIN_SHARD_BYTES, RingMean, ring_fits


def _first_difference(base: Any, other: Any, rank: int) -> str:
    """Where layout signature ``other`` (of ``rank``) departs from rank 0's."""
    names0 = dict(base[0])
    names1 = dict(other[0])
    for name in sorted(set(names0) | set(names1)):
        if name not in names1:
            return f"{name!r} on rank 0, no gradient on rank {rank}"
        if name not in names0:
            return f"{name!r} on rank {rank}, no gradient on rank 0"
        if names0[name] != names1[name]:
            return (
                f"{name!r} has shape {names0[name]} on rank 0, "
                f"{names1[name]} on rank {rank}"
            )
    return f"gradient dtypes {base[1]} on rank 0, {other[1]} on rank {rank}"


class GradMeanMixin:
    """``multi_node_mean_grad`` and its layout agreement, for
    :class:`~kusari_mn.communicators.mpi_communicator_base.MpiCommunicatorBase`.
    """

    mpi_comm: Any
    _grads: GradBuffer
    _flag: numpy.ndarray
    _half: HalfAllreduce
    _ring: RingMean

    #: Where the mean is fused into a ring reduction (see ``_ring.py``):
    #: buffers whose every shard has at least this many bytes.
    _ring_min_shard_bytes = MIN_SHARD_BYTES

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        """Average the gradients over the ranks in one collective per dtype.

        The gradients live in one persistent flat buffer per dtype, and
        after this call each parameter's ``grad`` is a view of it (valid
        until the next call). A gradient still in its view is not copied.
        Large float32/float64 host buffers are averaged by a ring
        reduce-scatter that divides each rank's summed shard while it is in
        cache, then an in-place allgather; it reads a replaced gradient
        where it is (sends it, adds it) instead of copying it in first.
        Other buffers are divided by the size with one NumPy
        call and summed with one in-place ``Allreduce`` (dividing before
        the sum keeps float16 sums, ``allreduce_grad_dtype``, from
        overflowing). Parameters are matched across ranks by name.

        The reduced buffer carries one element more, a flag that a rank
        whose set of gradients changed raises (reducing zeros in the layout
        all ranks last agreed on); every rank sees it and the ranks compare
        their layouts together, so a mismatch is an error on every rank
        rather than ranks waiting in different collectives, and no second
        collective is needed while nothing changes.

        Args:
            model: The link whose parameters' gradients are averaged.
            zero_fill: Average a None gradient as zeros; without it, a
                parameter whose gradient is None is left out (it must then
                be None on every rank).

        Raises:
            ValueError: On every rank, when the ranks' gradients differ in
                names, shapes or dtypes (e.g. a gradient None on some ranks
                only, without ``zero_fill``); the gradients are not
                averaged then.
        """
        self._mean_grad(model, zero_fill, False)

    def _mean_grad(self, model: Any, zero_fill: bool, resync: bool) -> bool:
        """:meth:`multi_node_mean_grad`, with a resynchronization request.

        Collective. ``resync`` is a request from this rank that all ranks
        skip this averaging (a :class:`MultiNodeOptimizer` whose parameter
        set changed broadcasts instead of updating); it travels in the
        layout flag of the reduction the other ranks are in anyway, so a
        step where no rank asks costs no extra collective.

        Returns:
            True on every rank when some rank asked: the gradients are then
            not averaged (on a rank that had already entered the reduction
            they may have been scaled or summed with another rank's zeros,
            so they are not to be used), and the layout is compared afresh
            next time. False after a normal averaging.

        Raises:
            ValueError: As :meth:`multi_node_mean_grad`, when no rank asked.
        """
        grads = self._grads
        if not resync and grads.steady(model, zero_fill):
            # Nothing changed since the last call, every gradient is still
            # its view and the reductions divide themselves: straight to
            # them (this skips tens of microseconds of Python a call).
            params = None
            in_views = True
        else:
            params = grads.select(model, zero_fill)
            if self._agree_layout(grads, params, resync):
                return True
            if not params:
                return False
            in_views = grads.load(params, 1.0 / self.mpi_comm.size)
        groups = grads.groups
        groups[0].set_flag(0)
        self._reduce_group(groups[0])
        if groups[0].flag() != 0:
            # Another rank raised the flag and reduced zeros: it asked for a
            # resynchronization (all ranks return True), or its layout
            # changed and so differs from this rank's, which did not (all
            # ranks raise).
            if self._check_layout(grads, False):
                return True
            grads.forget_layout()
            raise RuntimeError(
                "multi_node_mean_grad: a rank reported a changed gradient "
                "layout, yet all layouts agree"
            )
        for group in groups[1:]:
            self._reduce_group(group)
        if params is not None:
            if not in_views or any(g.separate_wire for g in groups):
                grads.store(params)
            grads.mark_steady(model, zero_fill)
        return False

    def _agree_layout(self, grads: GradBuffer, params: list[Any], resync: bool) -> bool:
        """(Re)build ``grads`` for ``params`` and make sure all ranks agree.

        Collective. While every rank keeps the layout they last agreed on,
        nothing is exchanged here: the flag travels with the gradients. A
        rank whose layout changed (or that asks for a resynchronization,
        ``resync``) takes part in the reduction the others are entering,
        with zeros in the agreed layout and its flag raised, then all ranks
        compare layouts. With no agreed layout (the first call, or after a
        mismatch or a resynchronization) every rank is in the same state and
        they compare directly.

        Returns:
            Whether some rank asked for a resynchronization (the same on
            every rank).

        Raises:
            ValueError: On every rank, when the ranks' layouts differ and
                no rank asked for a resynchronization.
        """
        rebuilt = grads.prepare(params)
        changed = rebuilt and grads.layout_signature != grads.agreed
        first = grads.agreed_first
        if grads.agreed is None:
            if self._check_layout(grads, resync):
                return True
        elif first is None:
            # The agreed layout reduces nothing, so no collective can carry
            # the flag: agree on it with one of its own.
            if self._on_any_rank(changed or resync) and self._check_layout(
                grads, resync
            ):
                return True
        elif changed or resync:
            # zeros, not the old buffer: its views may still be gradients
            blank = first.blank()
            blank.set_flag(1)
            self._reduce_group(blank)
            if self._check_layout(grads, resync):
                return True
        if rebuilt or grads.agreed is None:
            # (also after a rebuild that left the signature alone, e.g. a
            # parameter moved between devices: the new groups need their
            # reduction decided)
            grads.agree(self._fuses_mean)
        return False

    def _fuses_mean(self, group: GradGroup) -> bool:
        """Whether ``group``'s reduction divides by the size itself (the
        ring); the same answer on every rank for the same agreed layout."""
        return ring_fits(
            group.packet.dtype,
            group.packet.size,
            self.mpi_comm.size,
            self._ring_min_shard_bytes,
        )

    def _reduce_group(self, group: GradGroup) -> None:
        """Sum (or, for a group that is not prescaled, average) one group's
        packet over the ranks, in place."""
        if group.prescale:
            self._allreduce_grad_group(group)
            return
        host = group.packet_on_host()
        pending, group.pending = group.pending, []
        self._ring(self.mpi_comm, host, 1.0 / self.mpi_comm.size, pending)
        group.packet_from_host()

    def _load_agreed(
        self,
        grads: GradBuffer,
        params: list[Any],
        scale: float,
        resync: bool = False,
    ) -> bool:
        """Fill ``grads`` with ``scale`` times ``params``' gradients, once every
        rank agrees on the layout (double buffering's non-blocking path).

        Collective: every rank must call it for the same buffer. A rank
        whose layout changed (a gradient became None without ``zero_fill``,
        a parameter appeared) cannot compare layouts on its own: if only it
        gathered the signatures while the others went on to the gradient
        reduction, the ranks would wait in different collectives forever.
        So each call agrees on "did any rank's layout change, did any rank
        ask for a resynchronization (``resync``)" with one 8-byte
        Allreduce, and then, if a layout changed, all ranks compare
        signatures together.

        A rank whose layout did not change fills its buffers first: the
        agreement then comes right before the gradient reduction, and ranks
        that arrive apart wait once, in the agreement, instead of twice.

        Returns:
            Whether some rank asked for a resynchronization (then the
            buffers are not filled, and the layout is compared afresh next
            time).

        Raises:
            ValueError: On every rank, when the ranks' layouts differ and
                no rank asked for a resynchronization (the gradients that
                were still views of the buffer may then have been scaled
                already).
        """
        changed_here = grads.prepare(params)
        if not changed_here and not resync:
            grads.load(params, scale)
        changed, resync_any = self._on_any_rank(changed_here, resync)
        if resync_any:
            grads.forget_layout()
            return True
        if changed:
            self._check_layout(grads, False)
        if changed_here:
            grads.load(params, scale)
        return False

    def _on_any_rank(self, *flags: bool) -> Any:
        """Whether each of ``flags`` is true on any rank (collective: every
        rank calls it with as many flags; one small Allreduce).

        Returns:
            A bool for one flag, else a tuple of bools.
        """
        buf = self._flag[: len(flags)]
        buf[:] = flags
        if self.mpi_comm.size > 1:
            self.mpi_comm.Allreduce(MPI.IN_PLACE, buf, MPI.MAX)
        out = tuple(bool(b) for b in buf)
        return out[0] if len(out) == 1 else out

    def _check_layout(self, grads: GradBuffer, resync: bool) -> bool:
        """Compare the ranks' layouts and resynchronization requests
        (collective: one allgather).

        Returns:
            Whether any rank asked for a resynchronization (then every rank
            forgets its layout, which is compared afresh next time, and the
            layouts are not checked now: the caller re-establishes the ranks'
            agreement its own way).

        Raises:
            ValueError: On every rank, when no rank asked and the layouts
                differ (every rank forgets its layout then too).
        """
        mine = grads.layout_signature
        sigs = self.mpi_comm.allgather((mine, resync))
        if any(asked for _, asked in sigs):
            grads.forget_layout()
            return True
        sigs = [sig for sig, _ in sigs]
        if all(s == sigs[0] for s in sigs):
            return False
        # Forget the layout, so that the next call compares again on every
        # rank even if nothing changes locally until then.
        grads.forget_layout()
        counts = ", ".join(str(len(s[0])) for s in sigs)
        other = next(i for i, s in enumerate(sigs) if s != sigs[0])
        raise ValueError(
            "multi_node_mean_grad: the ranks have different gradients to average "
            f"(gradient arrays on ranks 0 to {len(sigs) - 1}: {counts}; first "
            "difference: "
            f"{_first_difference(sigs[0], sigs[other], other)}); build the same "
            "model everywhere and use zero_fill=True when some gradients may be "
            "None"
        )

    def _allreduce_grad_group(self, group: GradGroup) -> None:
        """Sum one group's packet (gradients and flag) over the ranks, in
        place."""
        host = group.packet_on_host()
        allreduce_sum(self.mpi_comm, host, self._half)
        group.packet_from_host()
