"""The packed gradient buffer behind ``multi_node_mean_grad``.

All gradients of a link are copied into one contiguous buffer so that one
Allreduce carries them, instead of one small Allreduce per parameter (whose
per-call latency dominates for models with many small tensors). The buffer
and its per-parameter views are kept between steps and rebuilt only when the
set of parameters, their shapes or dtypes change, so a training step
allocates nothing here.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend


def _is_host(array: Any) -> bool:
    return isinstance(array, numpy.ndarray)


class GradPacker:
    """Packs the gradients of a link into one flat buffer and back.

    Args:
        transport_dtype: dtype of the buffer (None: the gradients' common
            dtype).
    """

    def __init__(self, transport_dtype: Any = None) -> None:
        self.transport_dtype = (
            None if transport_dtype is None else numpy.dtype(transport_dtype)
        )
        self._key: tuple[Any, ...] | None = None
        self.buffer: Any = None
        self.host_buffer: numpy.ndarray | None = None
        self._views: list[Any] = []
        self.on_device = False
        #: Whether every gradient has the buffer's dtype, so that the
        #: reduced gradients can be handed out as views of the buffer.
        self.aliasable = False

    def select(self, model: Any, zero_fill: bool) -> list[tuple[str, Any]]:
        """The parameters taking part, sorted by name (same order on every rank)."""
        out = []
        for name, param in model.namedparams(include_uninit=False):
            if param.grad is None and not zero_fill:
                continue
            out.append((name, param))
        out.sort(key=lambda item: item[0])
        return out

    def prepare(self, params: list[tuple[str, Any]]) -> bool:
        """(Re)build the buffer for ``params``; True when the layout changed."""
        key = tuple(
            (name, p.array.shape, p.array.dtype.str, _is_host(p.array))
            for name, p in params
        )
        if key == self._key:
            return False
        arrays = [p.array for _, p in params]
        if self.transport_dtype is not None:
            dtype = self.transport_dtype
        elif arrays:
            dtype = numpy.result_type(*[a.dtype for a in arrays])
        else:
            dtype = numpy.dtype(numpy.float32)
        total = sum(int(a.size) for a in arrays)
        on_device = bool(arrays) and not _is_host(arrays[0])
        xp = backend.get_array_module(arrays[0]) if arrays else numpy
        buf = xp.empty(total, dtype=dtype)
        views = []
        offset = 0
        for a in arrays:
            views.append(buf[offset : offset + a.size].reshape(a.shape))
            offset += a.size
        self.buffer = buf
        self._views = views
        self.aliasable = all(a.dtype == dtype for a in arrays)
        self.on_device = on_device
        # A device buffer goes through this host copy when MPI carries it.
        self.host_buffer = numpy.empty(total, dtype=dtype) if on_device else None
        self._key = key
        return True

    @property
    def layout_signature(self) -> tuple[Any, ...]:
        """What every rank must agree on: names, shapes and the buffer dtype."""
        assert self._key is not None
        return (
            tuple((k[0], k[1]) for k in self._key),
            None if self.buffer is None else self.buffer.dtype.str,
        )

    def pack(self, params: list[tuple[str, Any]], scale: float = 1.0) -> None:
        """Copy (``scale`` times) every gradient into the buffer; None packs 0."""
        for (_, param), view in zip(params, self._views, strict=True):
            grad = param.grad
            if grad is None:
                view.fill(0)
            elif grad is view:
                # Still the view handed out by `hand_out` (gradients kept
                # and accumulated in place): only the scaling is left.
                if scale != 1.0:
                    view *= scale
            elif scale == 1.0:
                backend.get_array_module(view).copyto(view, grad, casting="unsafe")
            else:
                backend.get_array_module(view).multiply(
                    grad, scale, out=view, casting="unsafe"
                )

    def unpack(self, params: list[tuple[str, Any]], scale: float = 1.0) -> None:
        """Write the buffer (times ``scale``) back into the gradients."""
        for (_, param), view in zip(params, self._views, strict=True):
            grad = param.grad
            xp = backend.get_array_module(view)
            if grad is None:
                param.grad = (view * scale).astype(param.array.dtype, copy=False)
            elif scale == 1.0:
                xp.copyto(grad, view, casting="unsafe")
            else:
                xp.multiply(view, scale, out=grad, casting="unsafe")

    def hand_out(self, params: list[tuple[str, Any]]) -> None:
        """Make the buffer's contents the gradients: as views when the dtypes
        match (no copy; valid until the next ``pack``), else by copying."""
        if not self.aliasable:
            self.unpack(params)
            return
        for (_, param), view in zip(params, self._views, strict=True):
            param.grad = view

    def to_host(self) -> numpy.ndarray:
        """The buffer as a host array (a copy for a device buffer)."""
        if self.host_buffer is None:
            return self.buffer
        self.buffer.get(out=self.host_buffer)
        return self.host_buffer

    def from_host(self) -> None:
        """Copy the host staging buffer back to the device buffer."""
        if self.host_buffer is not None:
            self.buffer.set(self.host_buffer)
