"""How a Variable prints: ``repr``, ``str``, ``summary`` and ``debug_print``.

``Variable`` delegates to these functions (the formats are Chainer's, which
user code and doctests compare against); ``variable_repr`` and
``variable_str`` are also importable from :mod:`kusari.variable`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy

from kusari import backend

if TYPE_CHECKING:
    from kusari.variable import Variable


def summary(var: Variable) -> str:
    """``<variable NAME>``, or ``<variable at 0xID>`` when unnamed."""
    name = var.name
    if name:
        return f"<variable {name}>"
    return f"<variable at 0x{id(var):x}>"


def debug_print(var: Variable) -> str:
    """A multi-line description (device, backend, shape, dtype, stats, grad).

    The lines are Chainer's: ``- device: CPU`` for host arrays, the
    statistics as ``mean=..., std=...``, and ``- grad: 0`` for an
    all-zero gradient; an empty variable shows None throughout.
    """
    d = var._data
    stats_fmt = "mean={0:.8f}, std={1:.8f}"
    if d is None:
        device: Any = None
        array_type: Any = None
        stats = None
        shape = None
        dtype = None
    else:
        xp = backend.get_array_module(d)
        device = "CPU" if xp is numpy else d.device
        array_type = type(d)
        stats = stats_fmt.format(float(xp.mean(d)), float(xp.std(d)))
        shape = d.shape
        dtype = d.dtype
    g = var.grad
    if g is None:
        grad: Any = None
    else:
        gxp = backend.get_array_module(g)
        if bool(gxp.all(g == 0)):
            grad = 0
        else:
            grad = stats_fmt.format(float(gxp.mean(g)), float(gxp.std(g)))
    return "\n".join(
        [
            var.summary(),
            f"- device: {device}",
            f"- backend: {array_type}",
            f"- shape: {shape}",
            f"- dtype: {dtype}",
            f"- statistics: {stats}",
            f"- grad: {grad}",
        ]
    )


def variable_repr(var: Variable) -> str:
    """``repr`` of a Variable: ``variable([...])`` or ``variable name([...])``."""
    prefix = "variable" if var.name is None else f"variable {var.name}"
    if var._data is None:
        return f"{prefix}(None)"
    arr = backend.CpuDevice().send(var._data)
    if arr.size == 0 and arr.shape != (0,):
        # As NumPy's repr: an empty array's shape is not visible otherwise.
        return f"{prefix}([], shape={arr.shape!r})"
    body = numpy.array2string(arr, separator=", ", prefix=prefix + "(")
    return f"{prefix}({body})"


def variable_str(var: Variable) -> str:
    """``str`` of a Variable."""
    prefix = "variable" if var.name is None else f"variable {var.name}"
    if var._data is None:
        return f"{prefix}(None)"
    arr = backend.CpuDevice().send(var._data)
    return f"{prefix}({numpy.array2string(arr, prefix=prefix + '(')})"
