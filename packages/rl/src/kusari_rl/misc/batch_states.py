"""Turn a list of observations into one batch array on the agent's device."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import kusari

__all__ = ["batch_states"]


def _to_xp(arrays: Any, xp_or_device: Any) -> Any:
    if xp_or_device is np or xp_or_device is None:
        return arrays
    if hasattr(xp_or_device, "send"):  # a kusari Device
        return xp_or_device.send(arrays)
    return xp_or_device.asarray(arrays)


def batch_states(
    states: Sequence[Any], xp: Any, phi: Callable[[Any], Any] | None = None
) -> Any:
    """Apply ``phi`` to each state and stack the results into a batch.

    Args:
        states: Observations.
        xp: ``numpy``, ``cupy`` or a :class:`kusari.backend.Device`: where the
            batch goes.
        phi: Feature extractor applied to each state (identity if None).
            A ``phi`` returning tuples gives a tuple of batches.

    Returns:
        An array (or tuple of arrays) with a leading batch axis.

    Example:
        >>> batch_states([np.zeros(2), np.ones(2)], np, lambda s: s * 2).tolist()
        [[0.0, 0.0], [2.0, 2.0]]
    """
    features = list(states) if phi is None else [phi(s) for s in states]
    if features and isinstance(features[0], tuple):
        return tuple(
            _to_xp(np.asarray([f[i] for f in features]), xp)
            for i in range(len(features[0]))
        )
    if features and not isinstance(features[0], np.ndarray):
        dev = kusari.backend.get_device_from_array(features[0])
        if dev.xp is not np:
            return _to_xp(dev.xp.stack(features), xp)
    return _to_xp(np.asarray(features), xp)
