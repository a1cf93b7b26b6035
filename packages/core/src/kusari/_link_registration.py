"""Registering by name: ``add_param``, ``add_persistent``, ``register_persistent``.

A base of :class:`~kusari.Link`, whose ``init_scope`` assignments are the
usual way to register parameters; these methods are Chainer's older API.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy

from kusari import initializers
from kusari._link_version import _bump_param_set_version
from kusari.parameter import Parameter

if TYPE_CHECKING:
    from contextlib import AbstractContextManager


class _NamedRegistration:
    """Registration of parameters and persistent values by name.

    Only :class:`~kusari.Link` derives from it; ``Link.__init__`` makes the
    two name sets.
    """

    _params: set[str]
    _persistent: set[str]

    if TYPE_CHECKING:

        def init_scope(self) -> AbstractContextManager[None]: ...

    def add_param(
        self,
        name: str,
        shape: int | tuple[int, ...] | None = None,
        dtype: Any = numpy.float32,
        initializer: Any = None,
    ) -> None:
        """Registers a new parameter ``name``.

        Args:
            name: Attribute name of the parameter.
            shape: Its shape; ``None`` leaves it uninitialized.
            dtype: Its dtype when ``initializer`` is None (NaN-filled then).
            initializer: Initializer, scalar or array for the values.

        Raises:
            AttributeError: If the link already has an attribute ``name``.

        .. deprecated::
            As in Chainer 7 (which warns here too): assign a
            :class:`~kusari.Parameter` inside :meth:`init_scope` instead.

        Example:
            >>> import kusari
            >>> import warnings
            >>> link = kusari.Link()
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore", DeprecationWarning)
            ...     link.add_param('b', (3,), initializer=0)
            >>> link.b.shape
            (3,)
        """
        warnings.warn(
            "Parameter registration via Link.__init__ and Link.add_param is "
            "deprecated. Assign a Parameter object directly to an attribute "
            'within a "with Link.init_scope():" block instead.',
            DeprecationWarning,
            stacklevel=2,
        )
        if name in self.__dict__:
            raise AttributeError(
                f"cannot register a new parameter {name!r}: attribute exists"
            )
        if initializer is None:
            initializer = initializers.NaN(dtype)
        param = Parameter(initializer, shape)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Sets attribute ``name`` to ``value`` and saves it in :meth:`serialize`.

        Raises:
            AttributeError: If the link already has an attribute ``name``.

        Example:
            >>> import kusari
            >>> link = kusari.Link()
            >>> link.add_persistent('step', 0)
            >>> link.step
            0
        """
        if name in self.__dict__:
            raise AttributeError(
                f"cannot register a new persistent value {name!r}: attribute exists"
            )
        self._persistent.add(name)
        self._params.discard(name)
        self.__dict__[name] = value

    def register_persistent(self, name: str) -> None:
        """Marks the existing attribute ``name`` as persistent.

        Raises:
            AttributeError: If there is no attribute ``name``.

        Example:
            >>> import kusari
            >>> link = kusari.Link()
            >>> link.count = 3
            >>> link.register_persistent('count')
        """
        if not hasattr(self, name):
            raise AttributeError(
                f"cannot register non-existent attribute {name!r} as a persistent value"
            )
        if name in self._params:
            _bump_param_set_version()
        self._persistent.add(name)
        self._params.discard(name)
