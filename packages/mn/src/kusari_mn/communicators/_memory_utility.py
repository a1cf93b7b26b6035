"""The persistent gradient buffers behind ``multi_node_mean_grad``.

Every gradient of a link lives in one flat buffer per dtype, so that one
Allreduce carries them all instead of one small Allreduce per parameter
(whose per-call latency dominates for models with many small tensors).
After an averaging step each parameter's ``grad`` *is* a view of its
buffer, so as long as nothing replaces it (the user leaves the gradients in
place, or zeroes them in place with ``zerograds``), the next step has
nothing to copy: it scales the whole buffer with one NumPy (or CuPy) call
and reduces it in place. A gradient that was replaced (``cleargrads`` plus
backward makes new arrays) is copied into its view once, fused with the
scaling, and the view is handed back afterwards.

The buffers are kept between steps and rebuilt only when the set of
parameters, their shapes or dtypes change, so a step allocates nothing.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend


def _is_host(array: Any) -> bool:
    return isinstance(array, numpy.ndarray)


class GradGroup:
    """The parameters of one gradient dtype and their flat buffer.

    Attributes:
        dtype: The gradients' dtype (the buffer's).
        index: Positions of this group's parameters in the selected list.
        index_set: The same positions, as a set.
        views: One view of :attr:`buffer` per parameter, shaped like it.
        buffer: The flat buffer holding every gradient of the group.
        wire: The flat array that is reduced: :attr:`buffer` itself, or a
            buffer in the transport dtype (``allreduce_grad_dtype``).
        host: Host staging copy of :attr:`wire` for a device buffer that
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
        self.buffer = xp.zeros(total, dtype=self.dtype)
        views = []
        offset = 0
        for a in arrays:
            views.append(self.buffer[offset : offset + a.size].reshape(a.shape))
            offset += a.size
        self.views = views
        self.wire = (
            self.buffer
            if wire_dtype is None or numpy.dtype(wire_dtype) == self.dtype
            else xp.zeros(total, dtype=wire_dtype)
        )
        self.on_device = not _is_host(self.buffer)
        self.host: numpy.ndarray | None = None

    def wire_on_host(self) -> numpy.ndarray:
        """:attr:`wire` as a host array (a copy for a device buffer)."""
        if not self.on_device:
            return self.wire
        if self.host is None:
            self.host = numpy.empty(self.wire.size, dtype=self.wire.dtype)
        self.wire.get(out=self.host)
        return self.host

    def wire_from_host(self) -> None:
        """Copy the host staging array back into a device :attr:`wire`."""
        if self.on_device and self.host is not None:
            self.wire.set(self.host)


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
        self.groups: list[GradGroup] = []
        self._views: list[Any] = []

    def select(self, model: Any, zero_fill: bool) -> list[tuple[str, Any]]:
        """The parameters taking part, sorted by name (same order on every rank).

        Uninitialized parameters never take part; a parameter whose gradient
        is None takes part (as zeros) only with ``zero_fill``.
        """
        out = [
            (name, param)
            for name, param in model.namedparams(include_uninit=False)
            if zero_fill or param.grad is not None
        ]
        out.sort(key=lambda item: item[0])
        return out

    def prepare(self, params: list[tuple[str, Any]]) -> bool:
        """(Re)build the buffers for ``params``; True when the layout changed."""
        key = tuple(
            (name, p.array.shape, p.array.dtype.str, _is_host(p.array))
            for name, p in params
        )
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
        return True

    def forget_layout(self) -> None:
        """Make the next :meth:`prepare` rebuild the buffers (and report it)."""
        self._key = None

    @property
    def layout_signature(self) -> tuple[Any, ...]:
        """What every rank must agree on: names, shapes and the wire dtypes."""
        assert self._key is not None
        return (
            tuple((k[0], k[1]) for k in self._key),
            tuple(g.wire.dtype.str for g in self.groups),
        )

    def load(self, params: list[tuple[str, Any]], scale: float = 1.0) -> None:
        """Put ``scale`` times every gradient into the wire buffers.

        A gradient that is already its view stays where it is; a None
        gradient (``zero_fill``) becomes zeros; any other array is copied
        into its view, with the scaling fused into the copy where the
        buffer is the wire.
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
            separate_wire = group.wire is not group.buffer
            if separate_wire or not fresh:
                # Copies (if any) unscaled, then one scaling pass over the
                # whole buffer, then the cast into a wire of its own dtype.
                for i in fresh:
                    if i in group.index_set:
                        xp.copyto(views[i], params[i][1].grad, casting="unsafe")
                # Scaled in place, then cast: NumPy's multiply into a
                # float16 output takes a slow buffered path, and the buffer
                # is overwritten by the result anyway.
                if scale != 1.0:
                    xp.multiply(group.buffer, scale, out=group.buffer)
                if separate_wire:
                    xp.copyto(group.wire, group.buffer, casting="unsafe")
                continue
            # Some gradients were replaced: copy those with the scaling
            # fused (one pass each), scale the ones in place, and leave the
            # zeros. Copies go first, so a replaced gradient that happens to
            # be another parameter's view is read before that view is scaled.
            in_group = group.index_set
            for i in fresh:
                if i in in_group:
                    grad = params[i][1].grad
                    if scale == 1.0:
                        xp.copyto(views[i], grad, casting="unsafe")
                    else:
                        xp.multiply(grad, scale, out=views[i], casting="unsafe")
            if scale != 1.0:
                for i in own:
                    if i in in_group:
                        views[i] *= scale

    def store(self, params: list[tuple[str, Any]]) -> None:
        """Make the reduced buffers the gradients: every ``grad`` becomes its
        view (valid until the next :meth:`load`)."""
        for group in self.groups:
            if group.wire is not group.buffer:
                backend.get_array_module(group.buffer).copyto(
                    group.buffer, group.wire, casting="unsafe"
                )
        for (_, param), view in zip(params, self._views, strict=True):
            if param.grad is not view:
                param.grad = view
