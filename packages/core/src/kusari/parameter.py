"""Parameter: the trainable Variable a Link owns.

It lives above the engine (it builds its arrays with :mod:`kusari.initializers`),
so the engine's :mod:`kusari.variable` does not depend on initializers; that
module still answers ``kusari.variable.Parameter`` for Chainer code.
"""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend, initializers
from kusari.configuration import config
from kusari.types import DeviceSpec, InitializerSpec, ShapeSpec
from kusari.variable import Variable, _is_array


class Parameter(Variable):
    """A trainable variable owned by a :class:`~kusari.Link`.

    It may start uninitialized (``array is None``) and get its shape later
    through :meth:`initialize`, which is how links with ``in_size=None`` infer
    their input size on the first call.

    Args:
        initializer: An initializer, an array (used as the value), a scalar
            (a constant), or None (filled with NaN until set).
        shape: The shape; None leaves the parameter uninitialized.
        name: The name.

    Example:
        >>> import kusari
        >>> p = kusari.Parameter(kusari.initializers.Zero(), None)
        >>> p.is_initialized
        False
        >>> p.initialize((2,))
        >>> p.array
        array([0., 0.], dtype=float32)
    """

    update_rule: Any = None
    # Variable.addgrad/copydata may give an uninitialized Parameter a shape.
    _initializable = True

    def __init__(
        self,
        initializer: InitializerSpec = None,
        shape: ShapeSpec | None = None,
        name: str | None = None,
    ) -> None:
        if initializer is None:
            initializer = initializers.NaN()
        elif numpy.isscalar(initializer):
            initializer = initializers.Constant(initializer)
        self._initial_device: Any = backend.CpuDevice()
        # What a later initialize() fills the gradient with. As in Chainer,
        # only a parameter made without data gets one (NaN, as a reminder
        # that no backward has run); one made with data keeps None, so that
        # re-initializing it leaves no stale gradient.
        self._grad_initializer: Any = None
        if shape is None:
            if _is_array(initializer):
                # Chainer's Parameter(array): the array is the data, and
                # there is no gradient until a backward or zerograd.
                super().__init__(initializer, name=name)
                self._initial_device = backend.get_device_from_array(initializer)
                self.initializer = initializers.Constant(initializer)
            else:
                super().__init__(None, name=name)
                self.initializer = initializer
                dtype = getattr(self.initializer, "dtype", None)
                self._grad_initializer = initializers.NaN(dtype)
        else:
            if _is_array(initializer):
                initializer = initializers.Constant(initializer)
            self.initializer = initializer
            data = initializers.generate_array(initializer, shape, numpy)
            super().__init__(data, name=name)
            self.grad = numpy.full_like(data, numpy.nan)
        self.update_rule = None

    def __reduce__(self) -> Any:
        return _recover_parameter, (
            self._data,
            self.name,
            self.grad,
            self.initializer,
            self.update_rule,
            self._initial_device,
        )

    @property
    def is_initialized(self) -> bool:
        return self._data is not None

    @property
    def dtype(self) -> Any:
        if self._data is not None:
            return self._data.dtype
        return numpy.dtype(getattr(self.initializer, "dtype", None) or config.dtype)

    @property
    def device(self) -> Any:
        data = self._data
        initial = self._initial_device
        if data is None:
            return initial
        # A device over NumPy arrays that the parameter was sent to (a user's
        # Device subclass) is reported as it is, as Chainer does.
        if initial.xp is numpy and isinstance(data, numpy.ndarray):
            return initial
        return backend.get_device_from_array(data)

    @property
    def xp(self) -> Any:
        return self.device.xp

    def initialize(self, shape: ShapeSpec) -> None:
        """Allocate the array with ``shape`` using the stored initializer."""
        device = self._initial_device
        data = initializers.generate_array(
            self.initializer, shape, device.xp, device=device
        )
        ginit = self._grad_initializer
        grad = (
            None
            if ginit is None
            else initializers.generate_array(ginit, shape, device.xp, device=device)
        )
        self._set_data(data)
        self.grad = grad

    def cleargrad(self) -> None:
        super().cleargrad()
        if self._data is None:
            self._grad_initializer = None

    def zerograd(self) -> None:
        super().zerograd()
        if self._data is None:
            self._grad_initializer = initializers.Zero(self.dtype)

    def to_device(self, device: DeviceSpec) -> None:
        dev = backend.get_device(device)
        super().to_device(dev)
        self._initial_device = dev

    def update(self) -> None:
        """Update the array with its :attr:`update_rule` (set by an optimizer)."""
        if self.update_rule is not None:
            self.update_rule.update(self)


def _recover_parameter(
    data: Any,
    name: Any,
    grad: Any,
    initializer: Any,
    update_rule: Any,
    initial_device: Any = None,
) -> Parameter:
    p = Parameter(initializer=initializer, name=name)
    p._set_data(data)
    if data is not None:
        p._initial_device = backend.get_device_from_array(data)
    elif initial_device is not None:
        p._initial_device = initial_device
    p._grad_var = None if grad is None else Variable(grad, requires_grad=False)
    p.update_rule = update_rule
    return p
