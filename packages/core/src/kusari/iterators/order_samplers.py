"""Order samplers: decide the order in which an iterator visits examples."""

from __future__ import annotations

from typing import Any

import numpy


class OrderSampler:
    """Base class of order samplers.

    An order sampler is called at the start of every epoch as
    ``sampler(current_order, current_position)`` and returns the new order,
    an integer array of the same length.

    Example:
        >>> import numpy as np
        >>> class Reverse(OrderSampler):
        ...     def __call__(self, current_order, current_position):
        ...         return np.arange(len(current_order))[::-1]
        >>> Reverse()(np.arange(3), 0)
        array([2, 1, 0])
    """

    def __call__(
        self, current_order: numpy.ndarray, current_position: int
    ) -> numpy.ndarray:
        raise NotImplementedError


class ShuffleOrderSampler(OrderSampler):
    """Order sampler returning a fresh random permutation every epoch.

    Args:
        random_state: A :class:`numpy.random.RandomState` (or a
            :class:`numpy.random.Generator`); NumPy's global RandomState when
            ``None`` (so ``numpy.random.seed`` controls it).

    Example:
        >>> import numpy as np
        >>> s = ShuffleOrderSampler(np.random.RandomState(0))
        >>> sorted(s(np.arange(4), 0).tolist())
        [0, 1, 2, 3]
    """

    def __init__(
        self,
        random_state: numpy.random.RandomState | numpy.random.Generator | None = None,
    ) -> None:
        if random_state is None:
            # The global RandomState behind numpy.random.* functions.
            random_state = numpy.random.mtrand._rand
        self._random = random_state

    def __repr__(self) -> str:
        return "ShuffleOrderSampler()"

    def __call__(
        self, current_order: numpy.ndarray, current_position: int
    ) -> numpy.ndarray:
        return self._random.permutation(len(current_order))

    def serialize(self, serializer: Any) -> None:
        """Save or load the random state, without pickle.

        The next epochs' orders come from this state, so an exact resume
        needs it. A RandomState over MT19937 (the usual kind) is stored as
        ``keys`` (uint32 array), ``pos``, ``has_gauss`` and
        ``cached_gaussian``; other bit generators as their state dict,
        flattened into ``state/...`` keys (integers as decimal strings, as
        some do not fit in 64 bits). Loading from a file without these keys
        keeps the current state. Other random sources are not saved.

        Example:
            >>> import numpy as np
            >>> from kusari.serializers import DictionarySerializer
            >>> from kusari.serializers import NpzDeserializer
            >>> s = ShuffleOrderSampler(np.random.RandomState(0))
            >>> saved = DictionarySerializer()
            >>> s.serialize(saved)
            >>> first = s(np.arange(5), 0)
            >>> s.serialize(NpzDeserializer(saved.target))
            >>> bool((s(np.arange(5), 0) == first).all())
            True
        """
        rng = self._random
        state: dict[str, Any]
        if isinstance(rng, numpy.random.RandomState):
            state = dict(rng.get_state(legacy=False))
            if state["bit_generator"] == "MT19937":
                _serialize_legacy_mt19937(rng, serializer)
                return
        elif isinstance(rng, numpy.random.Generator):
            state = dict(rng.bit_generator.state)
        else:
            return  # another random source: its state is not saved
        name = state.pop("bit_generator")
        sub = serializer["state"]
        try:
            saved_name = str(sub("bit_generator", name))
        except KeyError:
            return  # saved without this state: keep the current one
        if saved_name != name:
            raise ValueError(
                f"ShuffleOrderSampler.serialize: the saved state is of {saved_name}, "
                f"this sampler uses {name}"
            )
        loaded = _serialize_state_tree(sub, state)
        loaded["bit_generator"] = name
        if isinstance(rng, numpy.random.RandomState):
            rng.set_state(loaded)
        else:
            rng.bit_generator.state = loaded


def _serialize_legacy_mt19937(rng: numpy.random.RandomState, serializer: Any) -> None:
    _name, keys, pos, has_gauss, cached = rng.get_state(legacy=True)
    try:
        keys = serializer("keys", numpy.array(keys, dtype=numpy.uint32))
        pos = serializer("pos", int(pos))
        has_gauss = serializer("has_gauss", int(has_gauss))
        cached = serializer("cached_gaussian", float(cached))
    except KeyError:
        return  # saved without the state (an older snapshot): keep the current one
    rng.set_state(
        (
            "MT19937",
            numpy.asarray(keys, dtype=numpy.uint32),
            int(pos),
            int(has_gauss),
            float(cached),
        )
    )


def _serialize_state_tree(serializer: Any, state: dict[str, Any]) -> dict[str, Any]:
    """Pass a (nested) bit generator state dict through ``serializer``;
    returns the state read back (the same values when saving)."""
    out: dict[str, Any] = {}
    for key, value in state.items():
        if isinstance(value, dict):
            out[key] = _serialize_state_tree(serializer[key], value)
        elif isinstance(value, numpy.ndarray):
            out[key] = numpy.array(serializer(key, value.copy()))
        elif isinstance(value, str):
            out[key] = str(serializer(key, value))
        elif isinstance(value, (float, numpy.floating)):
            out[key] = float(serializer(key, float(value)))
        else:  # integers, possibly wider than 64 bits
            out[key] = int(serializer(key, str(int(value))))
    return out
