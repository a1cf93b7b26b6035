"""Random sampling shared by the Normal/Uniform families and Orthogonal."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend


def to_numpy(sample: Any) -> numpy.ndarray:
    """Brings a sample drawn by a NumPy or CuPy generator to the host."""
    if isinstance(sample, numpy.ndarray):
        return sample
    if hasattr(sample, "get"):  # a CuPy array: copy it to the host
        return sample.get()
    return numpy.asarray(sample)


def fill_random(array: Any, method: str, rng: Any | None, **params: Any) -> None:
    """Fills ``array`` with ``rng.<method>(**params, size=array.shape)``.

    ``rng`` may be ``None`` (the global generator of the array's module), a
    ``numpy.random.RandomState``/``Generator`` or a CuPy ``RandomState``.
    """
    xp = backend.get_array_module(array)
    if rng is None:
        kwargs: dict[str, Any] = dict(params, size=array.shape)
        # cuRAND draws float32 or float64 only; NumPy's generator has no dtype
        # argument at all and always draws float64.
        if xp is not numpy and array.dtype in (numpy.float16, numpy.float32):
            kwargs["dtype"] = numpy.float32
        array[...] = getattr(xp.random, method)(**kwargs)
        return
    sample = getattr(rng, method)(size=array.shape, **params)
    if xp is numpy:
        array[...] = to_numpy(sample)
    else:
        array[...] = xp.asarray(sample)
