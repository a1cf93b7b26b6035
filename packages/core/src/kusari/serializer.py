"""The serialization protocol shared by links, optimizers, iterators and trainers.

An object that supports serialization defines ``serialize(serializer)``. In it,
every value is passed through ``value = serializer(key, value)`` and every
child object gets ``child.serialize(serializer[child_name])``. A
:class:`Serializer` records the values; a :class:`Deserializer` returns the
stored values (copying into existing arrays in place), so the same
``serialize`` method both saves and loads.
"""

from __future__ import annotations

from typing import Any


class AbstractSerializer:
    """Base of serializers and deserializers.

    Subclasses implement :meth:`__getitem__` (descend into a child) and
    :meth:`__call__` (save or load one value).

    Example:
        >>> from kusari.serializers import DictionarySerializer
        >>> s = DictionarySerializer()
        >>> s['child']('x', 3)
        3
        >>> s.target['child/x']
        array(3)
    """

    def __getitem__(self, key: str) -> AbstractSerializer:
        """Return a serializer for the child object named ``key``."""
        raise NotImplementedError

    def __call__(self, key: str, value: Any) -> Any:
        """Serialize or deserialize one value stored under ``key``.

        Args:
            key: Name of the value, relative to this serializer's path.
            value: The current value. A deserializer copies the loaded data
                into it when it is an array and returns the loaded value.

        Returns:
            The value the caller should keep.
        """
        raise NotImplementedError


class Serializer(AbstractSerializer):
    """Base of serializers that record values.

    Example:
        >>> from kusari.serializers import DictionarySerializer
        >>> class Counter:
        ...     def __init__(self):
        ...         self.n = 5
        ...     def serialize(self, serializer):
        ...         self.n = serializer('n', self.n)
        >>> s = DictionarySerializer()
        >>> s.save(Counter())
        >>> int(s.target['n'])
        5
    """

    def save(self, obj: Any) -> None:
        """Save ``obj`` by calling its ``serialize`` method with ``self``."""
        obj.serialize(self)


class Deserializer(AbstractSerializer):
    """Base of deserializers that restore values.

    Example:
        >>> import numpy as np
        >>> from kusari.serializers import NpzDeserializer
        >>> class Counter:
        ...     def __init__(self):
        ...         self.n = 0
        ...     def serialize(self, serializer):
        ...         self.n = serializer('n', self.n)
        >>> c = Counter()
        >>> NpzDeserializer({'n': np.asarray(7)}).load(c)
        >>> c.n
        7
    """

    def load(self, obj: Any) -> None:
        """Load ``obj`` by calling its ``serialize`` method with ``self``."""
        obj.serialize(self)
