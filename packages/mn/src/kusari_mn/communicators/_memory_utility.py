"""The persistent gradient buffers behind ``multi_node_mean_grad``.

Every gradient of a link lives in one flat buffer per dtype, so that one
Allreduce carries them all instead of one small Allreduce per parameter
(whose per-call latency dominates for models with many small tensors).
After an averaging step each parameter's ``grad`` *is* a view of its
buffer, so as long as nothing replaces it (the user leaves the gradients in
place, or zeroes them in place with ``zerograds``), the next step has
nothing to copy: it scales the whole buffer with one NumPy (or CuPy) call
and reduces it in place, or, for a group whose reduction divides by the
number of ranks itself (the ring of ``_ring.py``), reduces it as it is. A
gradient that was replaced (``cleargrads`` plus backward makes new arrays)
is copied into its view once, fused with the scaling, or left where it is
for the ring to read; the view is handed back afterwards. The multi-node
optimizer avoids that case: it hands the views to backward as the
gradients' destinations (:meth:`GradBuffer.destinations`), so the fresh
gradients are copied into them while still in cache and the averaging
finds every gradient in its view.

The buffers are kept between steps and rebuilt only when the set of
parameters, their shapes or dtypes change, so a step allocates nothing.
"""

from __future__ import annotations

import mmap
import operator
import weakref
from collections.abc import Callable
from typing import Any

import numpy

from kusari import backend

_first = operator.itemgetter(0)


def _aliases(array: Any, buffer: Any) -> bool:
    """Whether ``array`` may be (part of) ``buffer``'s memory."""
    if type(array) is not type(buffer):
        return False
    return bool(backend.get_array_module(buffer).may_share_memory(array, buffer))


def _is_host(array: Any) -> bool:
    return isinstance(array, numpy.ndarray)


#: The huge page size of x86-64 and most arm64 Linux kernels.
HUGE_PAGE = 2 << 20


def zeros(xp: Any, count: int, dtype: Any) -> Any:
    """``xp.zeros(count, dtype)``; on the host, when it is large, placed at a
    :data:`HUGE_PAGE` boundary with a huge page's slack after its end.

    On Linux NumPy asks for transparent huge pages for large arrays, and the
    kernel backs with them only the 2 MiB-aligned stretches that lie wholly
    inside the allocation; the rest is 4 KiB pages. Where an ordinary
    allocation happens to start decides how much of a buffer that is, and
    on the development machine that alone moved the time of an in-place
    7.2 MB ``MPI_Allreduce`` by 20% from one buffer to the next in the same
    job (``docs/mn-scaling.md``). Placed so, all of it can be huge pages.
    """
    dtype = numpy.dtype(dtype)
    nbytes = count * dtype.itemsize
    if xp is not numpy or nbytes < HUGE_PAGE:
        return xp.zeros(count, dtype=dtype)
    # A mapping of its own, not the heap: since kusari sets glibc's malloc
    # to keep blocks below 32 MiB in the heap, a buffer from numpy.zeros
    # may reuse pages already faulted in as 4 KiB ones, which stay so (the
    # first communicator's buffer was 88% huge pages, later ones 100%, and
    # a ring over the worse one took up to 2.6x as long).
    area = _private_area(nbytes + 2 * HUGE_PAGE)
    _ask_for_huge_pages(area)
    raw = numpy.frombuffer(area, dtype=numpy.uint8)  # zeros, kept alive by raw
    start = -raw.ctypes.data % HUGE_PAGE
    return raw[start : start + nbytes].view(dtype)


def _private_area(nbytes: int) -> mmap.mmap:
    """``nbytes`` of private anonymous memory (zeros).

    ``mmap.mmap(-1, n)`` alone maps *shared* anonymous memory, which Linux
    backs by shmem: no transparent huge pages unless ``shmem_enabled``
    says so (it says ``never`` by default), and the peer rank's kernel copy
    (Open MPI's CMA) reads shmem pages slowly. On the development machine
    an in-place 7.2 MB ``MPI_Allreduce`` and the ring took 2.2-3x as long on
    such a buffer as on a private one with huge pages (``docs/mn-scaling.md``).
    """
    private = getattr(mmap, "MAP_PRIVATE", None)
    anonymous = getattr(mmap, "MAP_ANONYMOUS", None)
    if private is None or anonymous is None:  # Windows: no flags to give
        return mmap.mmap(-1, nbytes)
    return mmap.mmap(-1, nbytes, flags=private | anonymous)


def _ask_for_huge_pages(area: mmap.mmap) -> bool:
    """``madvise(MADV_HUGEPAGE)`` on ``area``; False where the platform or
    the kernel has no transparent huge pages (the area then keeps small
    pages, which work, only slower)."""
    if not hasattr(mmap, "MADV_HUGEPAGE"):
        return False
    try:
        area.madvise(mmap.MADV_HUGEPAGE)
    except OSError:
        return False
    return True


class GradGroup:
    """The parameters of one gradient dtype and their flat buffer.

    Attributes:
        dtype: The gradients' dtype (the buffer's).
        index: Positions of this group's parameters in the selected list.
        index_set: The same positions, as a set.
        views: One view of :attr:`buffer` per parameter, shaped like it.
        buffer: The flat buffer holding every gradient of the group.
        packet: What is reduced: :attr:`wire` and one element more, the
            flag with which a rank whose gradient layout changed tells the
            others, in the same collective as the gradients.
        wire: The gradients in :attr:`packet` (its head): :attr:`buffer`
            itself, or a buffer in the transport dtype
            (``allreduce_grad_dtype``).
        separate_wire: Whether :attr:`wire` is not :attr:`buffer`.
        prescale: Whether :meth:`GradBuffer.load` multiplies the gradients
            by the scale (True), or the reduction does (False: it fuses the
            mean into the sum).
        offsets: Where each parameter's gradient starts in the buffer, by
            position in the selected list.
        pending: Replaced gradients that :meth:`GradBuffer.load` left
            where they are, as ``(offset, flat array)`` in buffer order,
            for a reduction that reads them in place (the ring: it sends
            them and adds them as it goes, instead of a copy pass first);
            the reduction takes them and empties the list.
        host: Host staging copy of :attr:`packet` for a device buffer that
            travels over MPI (None on host, or until asked for).
    """

    def __init__(
        self, dtype: Any, index: list[int], arrays: list[Any], wire_dtype: Any
    ) -> None:
        xp = backend.get_array_module(arrays[0])
        total = sum(int(a.size) for a in arrays)
        self.dtype = numpy.dtype(dtype)
        self.index = index
        self.index_set = frozenset(index)
        wire_dtype = self.dtype if wire_dtype is None else numpy.dtype(wire_dtype)
        self.packet = zeros(xp, total + 1, wire_dtype)
        self.wire = self.packet[:total]
        self.separate_wire = wire_dtype != self.dtype
        self.buffer = zeros(xp, total, self.dtype) if self.separate_wire else self.wire
        views = []
        starts = []
        offset = 0
        for a in arrays:
            views.append(self.buffer[offset : offset + a.size].reshape(a.shape))
            starts.append(offset)
            offset += a.size
        self.views = views
        self.offsets = dict(zip(index, starts, strict=True))
        self.on_device = not _is_host(self.buffer)
        self.prescale = True
        self.pending: list[tuple[int, numpy.ndarray]] = []
        self.host: numpy.ndarray | None = None

    def blank(self) -> GradGroup:
        """A group with buffers like this one's, zeros, and no views.

        What a rank whose layout changed reduces in place of its old
        gradients, so that the collective the other ranks are in matches
        and no old view that is still a gradient is written.
        """
        xp = backend.get_array_module(self.buffer)
        out = GradGroup(
            self.dtype,
            [0],
            [zeros(xp, self.wire.size, self.dtype)],
            self.packet.dtype if self.separate_wire else None,
        )
        out.index, out.index_set, out.views, out.offsets = [], frozenset(), [], {}
        out.prescale = self.prescale
        return out

    def packet_on_host(self) -> numpy.ndarray:
        """:attr:`packet` as a host array (a copy for a device buffer)."""
        if not self.on_device:
            return self.packet
        if self.host is None:
            self.host = numpy.empty(self.packet.size, dtype=self.packet.dtype)
        self.packet.get(out=self.host)
        return self.host

    def packet_from_host(self) -> None:
        """Copy the host staging array back into a device :attr:`packet`."""
        if self.on_device and self.host is not None:
            self.packet.set(self.host)

    def set_flag(self, value: float) -> None:
        """Put the layout flag in :attr:`packet`'s last element."""
        self.packet[-1] = value

    def flag(self) -> float:
        """The (reduced) layout flag: nonzero when a rank raised it."""
        return float(self.packet[-1:].item())


class GradBuffer:
    """Gradients of a link in persistent flat buffers, one per dtype.

    Args:
        transport_dtype: dtype the buffers are reduced in (None: the
            gradients' own dtype).
    """

    def __init__(self, transport_dtype: Any = None) -> None:
        self.transport_dtype = (
            None if transport_dtype is None else numpy.dtype(transport_dtype)
        )
        self._key: tuple[Any, ...] | None = None
        self._last: list[tuple[Any, Any]] | None = None
        self.groups: list[GradGroup] = []
        self._views: list[Any] = []
        # (the model, its param_set_version, its parameters by name) of the
        # last select: the model weakly, so that a communicator does not
        # keep a model alive
        self._walk: tuple[Any, Any, list[tuple[str, Any]]] | None = None
        # What a call may skip select, prepare and the layout check on (see
        # steady): (the model, its version, zero_fill, (parameter, array,
        # gradient) of every parameter in the walk), or None.
        self._steady: tuple[Any, Any, bool, list[tuple[Any, Any, Any]]] | None = None
        # The layout signature every rank agreed on last (None: none yet,
        # or a mismatch was found), and its first group (whose blank a rank
        # reduces when its own layout changed).
        self.agreed: tuple[Any, ...] | None = None
        self.agreed_first: GradGroup | None = None
        # (parameter, view) pairs for backward (see destinations), or None
        # until asked for after a rebuild.
        self._dests: list[tuple[Any, Any]] | None = None

    def select(self, model: Any, zero_fill: bool) -> list[tuple[str, Any]]:
        """The parameters taking part, sorted by name (same order on every rank).

        Uninitialized parameters never take part; a parameter whose gradient
        is None takes part (as zeros) only with ``zero_fill``.

        The walk of ``model``'s tree (``namedparams`` and the sort: tens of
        microseconds for a small model, more than the rest of a call's
        Python) is kept while ``model.param_set_version`` stays the same,
        which it does while no link gains, loses or replaces a parameter or
        a child. Whether a parameter is initialized is looked at every call.
        """
        version = getattr(model, "param_set_version", None)
        walk = self._walk
        if version is None:  # not a kusari link: walk every time
            everything = sorted(model.namedparams(), key=_first)  # by name
        elif walk is not None and walk[0]() is model and walk[1] == version:
            everything = walk[2]
        else:
            everything = sorted(model.namedparams(), key=_first)
            self._walk = (weakref.ref(model), version, everything)
        return [
            (name, param)
            for name, param in everything
            if param.array is not None and (zero_fill or param.grad is not None)
        ]

    def prepare(self, params: list[tuple[str, Any]]) -> bool:
        """(Re)build the buffers for ``params``; True when the layout changed."""
        last = self._last
        if last is not None and len(last) == len(params):
            # The same parameter objects holding the same arrays, in the
            # same order: nothing the layout depends on can have changed
            # (an array cannot change size in place while views of it
            # exist), and this check is the cheaper one by far.
            for (_, p), (last_p, last_a) in zip(params, last, strict=True):
                if p is not last_p or p.array is not last_a:
                    break
            else:
                return False
        key = tuple(
            (name, p.array.shape, p.array.dtype.str, _is_host(p.array))
            for name, p in params
        )
        self._last = [(p, p.array) for _, p in params]
        self._dests = None
        if key == self._key:
            return False
        by_dtype: dict[Any, list[int]] = {}
        for i, (_, p) in enumerate(params):
            by_dtype.setdefault(p.array.dtype, []).append(i)
        groups = []
        views: list[Any] = [None] * len(params)
        # Sorted by dtype name so that every rank reduces the groups in the
        # same order.
        for dtype in sorted(by_dtype, key=lambda d: d.str):
            index = by_dtype[dtype]
            group = GradGroup(
                dtype,
                index,
                [params[i][1].array for i in index],
                self.transport_dtype,
            )
            for i, view in zip(index, group.views, strict=True):
                views[i] = view
            groups.append(group)
        self.groups = groups
        self._views = views
        self._key = key
        self._steady = None
        self._dests = None
        return True

    def mark_steady(self, model: Any, zero_fill: bool) -> None:
        """Remember the state after a call whose reductions read the views
        as they are (no prescaling, no wire of its own) and left every
        selected gradient a view: while the model stays exactly so,
        :meth:`steady` lets the next call go straight to the reduction."""
        walk = self._walk
        version = getattr(model, "param_set_version", None)
        if (
            version is None
            or walk is None
            or walk[0]() is not model
            or walk[1] != version
            or any(g.prescale or g.separate_wire for g in self.groups)
        ):
            self._steady = None
            return
        self._steady = (
            walk[0],
            version,
            zero_fill,
            [(p, p.array, p.grad) for _, p in walk[2]],
        )

    def steady(self, model: Any, zero_fill: bool) -> bool:
        """Whether nothing a call depends on changed since :meth:`mark_steady`:
        the same model and ``param_set_version``, and every parameter holding
        the same array and the same gradient (its view, or None). Then
        :meth:`select` would return the same list, :meth:`prepare` would
        report no change, and :meth:`load` would have nothing to do."""
        steady = self._steady
        if steady is None:
            return False
        ref, version, zf, state = steady
        if ref() is not model or zf != zero_fill:
            return False
        if model.param_set_version != version:
            return False
        for p, array, grad in state:
            if p.array is not array or p.grad is not grad:
                return False
        return True

    def destinations(self, model: Any) -> list[tuple[Any, Any]] | None:
        """``(parameter, view)`` for every parameter of the last averaging,
        if that averaged ``model``, for
        ``kusari.grad_destinations``: backward then writes
        each gradient into its view as soon as it is computed, and the next
        averaging finds them all in place (no copying pass, no reading of
        scattered fresh arrays). None before the first averaging, after a
        mismatch, or while one of those parameters is uninitialized or holds
        an array its view does not fit (another shape, dtype or array type;
        that step copies as before). An array replaced by one like it (the
        fused optimizer update packs the parameters into its own buffer
        once) keeps its view. None too when the last averaging was of
        another model (two optimizers sharing a communicator, as a GAN's
        do): backward would write into views that are another model's
        gradients.
        """
        last = self._last
        walk = self._walk
        if last is None or walk is None or walk[0]() is not model:
            return None
        for (p, array), view in zip(last, self._views, strict=True):
            now = p.array
            if now is None or now.shape != view.shape:
                return None
            if now is not array and (
                now.dtype != view.dtype or type(now) is not type(view)
            ):
                return None
        if self._dests is None:
            self._dests = [
                (p, view) for (p, _), view in zip(last, self._views, strict=True)
            ]
        return self._dests

    def forget_layout(self) -> None:
        """Make the next :meth:`prepare` rebuild the buffers (and report it),
        and drop the agreed layout."""
        self._key = None
        self._last = None
        self._steady = None
        self._dests = None
        self.agreed = None
        self.agreed_first = None

    def agree(self, fuses_mean: Callable[[GradGroup], bool]) -> None:
        """Record the current layout as agreed by every rank.

        Args:
            fuses_mean: Says for each group whether its reduction divides
                by the number of ranks itself (then :meth:`load` does not).
        """
        self.agreed = self.layout_signature
        for group in self.groups:
            group.prescale = not fuses_mean(group)
        self.agreed_first = self.groups[0] if self.groups else None

    @property
    def layout_signature(self) -> tuple[Any, ...]:
        """What every rank must agree on: names, shapes and the wire dtypes."""
        assert self._key is not None
        return (
            tuple((k[0], k[1]) for k in self._key),
            tuple(g.wire.dtype.str for g in self.groups),
        )

    def load(self, params: list[tuple[str, Any]], scale: float = 1.0) -> bool:
        """Put ``scale`` times every gradient into the wire buffers.

        A gradient that is already its view stays where it is; a None
        gradient (``zero_fill``) becomes zeros; any other array is copied
        into its view, with the scaling fused into the copy where the
        buffer is the wire. Groups that are not :attr:`GradGroup.prescale`
        are loaded unscaled (their reduction scales).

        Returns:
            Whether every gradient was its view already (then, without a
            separate wire, :meth:`store` would have nothing to do).
        """
        views = self._views
        fresh = []
        own = []
        for i, (_, param) in enumerate(params):
            grad = param.grad
            view = views[i]
            if grad is view:
                own.append(i)
            elif grad is None:
                view.fill(0)
            else:
                fresh.append(i)
        for group in self.groups:
            xp = backend.get_array_module(group.buffer)
            separate_wire = group.separate_wire
            scale_here = scale != 1.0 and group.prescale
            group.pending = []
            mine = [i for i in fresh if i in group.index_set]
            if len(mine) > 1:
                # A replaced gradient that is (part of) another parameter's
                # view is read before any copy writes into that view.
                mine.sort(key=lambda i: not _aliases(params[i][1].grad, group.buffer))
            if separate_wire or not mine:
                # Copies (if any) unscaled, then one scaling pass over the
                # whole buffer, then the cast into a wire of its own dtype.
                for i in mine:
                    xp.copyto(views[i], params[i][1].grad, casting="unsafe")
                # Scaled in place, then cast: NumPy's multiply into a
                # float16 output takes a slow buffered path, and the buffer
                # is overwritten by the result anyway.
                if scale_here:
                    xp.multiply(group.buffer, scale, out=group.buffer)
                if separate_wire:
                    xp.copyto(group.wire, group.buffer, casting="unsafe")
                continue
            # Some gradients were replaced: copy those with the scaling
            # fused (one pass each), scale the ones in place, and leave the
            # zeros. Copies go first, so a replaced gradient that happens to
            # be another parameter's view is read before that view is scaled.
            in_group = group.index_set
            defer = not group.prescale and not group.on_device
            for i in mine:
                grad = params[i][1].grad
                if (
                    defer
                    and isinstance(grad, numpy.ndarray)
                    and grad.dtype == group.dtype
                    and grad.flags.c_contiguous
                    and not numpy.may_share_memory(grad, group.packet)
                ):
                    # The ring reads it where it is (see GradGroup.pending).
                    group.pending.append((group.offsets[i], grad.reshape(-1)))
                elif not scale_here:
                    xp.copyto(views[i], grad, casting="unsafe")
                else:
                    xp.multiply(grad, scale, out=views[i], casting="unsafe")
            group.pending.sort(key=_first)  # by offset
            if scale_here:
                for i in own:
                    if i in in_group:
                        views[i] *= scale
        return len(own) == len(params)

    def store(self, params: list[tuple[str, Any]]) -> None:
        """Make the reduced buffers the gradients: every ``grad`` becomes its
        view (valid until the next :meth:`load`)."""
        for group in self.groups:
            if group.separate_wire:
                backend.get_array_module(group.buffer).copyto(
                    group.buffer, group.wire, casting="unsafe"
                )
        for (_, param), view in zip(params, self._views, strict=True):
            if param.grad is not view:
                param.grad = view
