"""Walker's alias method: O(1) sampling from a fixed discrete distribution."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.device_resident import DeviceResident


class WalkerAlias(DeviceResident):
    """Draws integers ``i`` with probability proportional to ``probs[i]``.

    The table has one bucket per outcome; bucket ``i`` keeps its own
    outcome (``values[2 * i]``) with probability ``threshold[i]`` and
    otherwise yields its alias (``values[2 * i + 1]``). Sampling picks a
    bucket uniformly, then one of its two values, so each draw is O(1).

    Args:
        probs: Non-negative weights (need not sum to one).

    Attributes:
        threshold: ``float32`` array, per bucket, of the chance to keep the
            bucket's own outcome.
        values: ``int32`` array of length ``2 * len(probs)``: the own
            outcome and the alias of each bucket.

    Example:
        >>> import numpy as np
        >>> from kusari.utils import walker_alias
        >>> sampler = walker_alias.WalkerAlias([0., 1., 0.])
        >>> sampler.sample((4,)).tolist()
        [1, 1, 1, 1]
    """

    def __init__(self, probs: Any) -> None:
        super().__init__()
        prob = numpy.asarray(probs, dtype=numpy.float64).ravel()
        n = len(prob)
        if n == 0:
            raise ValueError("WalkerAlias: probs must not be empty")
        if (prob < 0).any() or not numpy.isfinite(prob).all():
            raise ValueError("WalkerAlias: probs must be finite and non-negative")
        total = prob.sum()
        if total <= 0:
            raise ValueError("WalkerAlias: probs must not sum to zero")
        scaled = prob * (n / total)
        threshold = numpy.ones(n, dtype=numpy.float64)
        values = numpy.empty(2 * n, dtype=numpy.int32)
        values[0::2] = numpy.arange(n, dtype=numpy.int32)
        values[1::2] = numpy.arange(n, dtype=numpy.int32)
        small = [i for i in range(n) if scaled[i] < 1.0]
        large = [i for i in range(n) if scaled[i] >= 1.0]
        while small and large:
            s = small.pop()
            g = large[-1]
            threshold[s] = scaled[s]
            values[2 * s + 1] = g
            scaled[g] -= 1.0 - scaled[s]
            if scaled[g] < 1.0:
                large.pop()
                small.append(g)
        # Whatever is left is full up to rounding: keep its own outcome.
        for i in small + large:
            threshold[i] = 1.0
        self.threshold = threshold.astype(numpy.float32)
        self.values = values

    @property
    def use_gpu(self) -> bool:
        """True when the tables live on a GPU."""
        return self.xp is not numpy

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self.threshold = visitor.visit_array(self.threshold)
        self.values = visitor.visit_array(self.values)

    def sample(self, shape: Any) -> Any:
        """Draw an ``int32`` array of the given shape (on the tables' device)."""
        if self.use_gpu:
            return self.sample_gpu(shape)
        return self.sample_cpu(shape)

    def sample_cpu(self, shape: Any) -> Any:
        return self._sample(numpy, shape)

    def sample_gpu(self, shape: Any) -> Any:
        return self._sample(self.xp, shape)

    def _sample(self, xp: Any, shape: Any) -> Any:
        n = len(self.threshold)
        u = xp.random.uniform(0, 1, shape) * n
        bucket = xp.minimum(u.astype(numpy.int32), n - 1)
        alias = (u - bucket >= self.threshold[bucket]).astype(numpy.int32)
        return self.values[bucket * 2 + alias]

    def __repr__(self) -> str:
        device = backend.get_device_from_array(self.threshold)
        return f"WalkerAlias(n={len(self.threshold)}, device={device})"
