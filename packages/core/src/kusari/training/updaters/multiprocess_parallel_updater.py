"""MultiprocessParallelUpdater: multi-GPU training over NCCL (not supported).

The module's helpers that pack a link's parameters or gradients into one
float32 array and unpack it again (``gather_grads``, ``scatter_grads``,
``gather_params``, ``scatter_params``, ``size_num_grads``) exist as in
Chainer 7: like Chainer's they work on GPU arrays only and raise
:class:`RuntimeError` for a link on the CPU.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend


class MultiprocessParallelUpdater:
    """Chainer's NCCL-based multi-GPU updater; kusari does not provide NCCL
    support, so :meth:`available` is False and construction raises."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            "MultiprocessParallelUpdater needs NCCL multi-GPU support, which "
            "kusari does not provide; use StandardUpdater or ParallelUpdater"
        )

    @staticmethod
    def available() -> bool:
        """Always False."""
        return False


def size_num_grads(link: Any) -> tuple[int, int]:
    """Count the elements and the number of a link's non-empty parameters.

    Args:
        link: The link whose parameters are counted.

    Returns:
        ``(total number of elements, number of parameters)``; parameters of
        size 0 (and uninitialized ones) are left out.
    """
    size = num = 0
    for param in link.params():
        if param.array is None or param.size == 0:
            continue
        size += param.size
        num += 1
    return size, num


def _gather(link: Any, target: str) -> Any:
    """Concatenate the ``target`` arrays ('grad' or 'data') into float32.

    A parameter whose array is missing (no gradient yet) contributes zeros,
    so the layout depends on the parameters only.
    """
    pieces = []
    xp: Any = numpy
    for param in link.params():
        if param.array is None or param.size == 0:
            continue
        xp = backend.get_array_module(param.array)
        array = getattr(param, target)
        if array is None:
            pieces.append(xp.zeros(param.size, dtype=numpy.float32))
        else:
            pieces.append(xp.ravel(array).astype(numpy.float32))
    if not pieces:
        return xp.zeros(0, dtype=numpy.float32)
    return xp.concatenate(pieces)


def _scatter(link: Any, array: Any, target: str) -> None:
    """Write consecutive pieces of ``array`` back into each parameter's
    ``target`` array, cast to its dtype; a missing array is left missing."""
    size, _ = size_num_grads(link)
    if array.size != size:
        raise ValueError(
            f"scatter_{'grads' if target == 'grad' else 'params'}: expected an "
            f"array of {size} elements for this link, got {array.size}"
        )
    offset = 0
    for param in link.params():
        if param.array is None or param.size == 0:
            continue
        dest = getattr(param, target)
        if dest is not None:
            piece = array[offset : offset + param.size].reshape(dest.shape)
            dest[...] = piece.astype(dest.dtype)
        offset += param.size


def _require_gpu(link: Any, caller: str) -> None:
    for param in link.params():
        if param.array is not None:
            if backend.get_array_module(param.array) is numpy:
                raise RuntimeError(
                    f"{caller} works only on GPU: the link's parameters are "
                    "NumPy arrays (Chainer's rule too; move the link with "
                    "to_device first)"
                )
            return


def gather_grads(link: Any) -> Any:
    """Put all gradients of a GPU link together into one float32 array.

    Args:
        link: A link whose parameters are on a GPU.

    Returns:
        A 1-d float32 CuPy array (zeros where a gradient is missing).

    Raises:
        RuntimeError: The link is on the CPU.
    """
    _require_gpu(link, "gather_grads")
    return _gather(link, "grad")


def gather_params(link: Any) -> Any:
    """Put all parameters of a GPU link together into one float32 array.

    Args:
        link: A link whose parameters are on a GPU.

    Returns:
        A 1-d float32 CuPy array.

    Raises:
        RuntimeError: The link is on the CPU.
    """
    _require_gpu(link, "gather_params")
    return _gather(link, "data")


def scatter_grads(link: Any, array: Any) -> None:
    """Copy an array made by :func:`gather_grads` back into the gradients.

    Args:
        link: A link whose parameters are on a GPU.
        array: A 1-d array with :func:`size_num_grads` ``[0]`` elements.

    Raises:
        RuntimeError: The link is on the CPU.
    """
    _require_gpu(link, "scatter_grads")
    _scatter(link, array, "grad")


def scatter_params(link: Any, array: Any) -> None:
    """Copy an array made by :func:`gather_params` back into the parameters.

    Args:
        link: A link whose parameters are on a GPU.
        array: A 1-d array with :func:`size_num_grads` ``[0]`` elements.

    Raises:
        RuntimeError: The link is on the CPU.
    """
    _require_gpu(link, "scatter_params")
    _scatter(link, array, "data")
