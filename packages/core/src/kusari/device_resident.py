"""Objects that own arrays on a device and can be moved between devices.

Example:
    >>> import kusari
    >>> link = kusari.Link()
    >>> link.to_device('@numpy').device
    <CpuDevice @numpy>
"""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

from kusari import backend
from kusari.backends import cuda, intel64

_DR = TypeVar("_DR", bound="DeviceResident")


class DeviceResident:
    """Base of objects holding arrays on one device (links, optimizers...).

    Subclasses describe what they own by overriding
    :meth:`device_resident_accept`, which hands each array, variable and
    nested resident to a :class:`DeviceResidentsVisitor`. Moving to a device
    is one such visit.

    Example:
        >>> import numpy
        >>> class Holder(DeviceResident):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.table = numpy.zeros(3)
        ...     def device_resident_accept(self, visitor):
        ...         super().device_resident_accept(visitor)
        ...         self.table = visitor.visit_array(self.table)
        >>> Holder().to_device('@numpy').xp is numpy
        True
    """

    _device: backend.Device
    # Legacy to_cpu/to_gpu overrides of a subclass, called by device moves
    # started from a parent so that old code moving extra arrays still works.
    _overridden_to_methods: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _LEGACY_TO_METHODS:
            if name in cls.__dict__:
                # Chainer 7 warns when a class body overrides the deprecated
                # moves; old code doing so still works (see the visitor).
                warnings.warn(
                    f"Overriding method {name!r}.", DeprecationWarning, stacklevel=2
                )
        cls._overridden_to_methods = tuple(
            name
            for name in _LEGACY_TO_METHODS
            if getattr(cls, name) is not getattr(DeviceResident, name)
        )

    def __init__(self) -> None:
        self._device = backend.CpuDevice()

    @property
    def device(self) -> backend.Device:
        """The :class:`~kusari.backend.Device` the object's arrays live on."""
        return self._device

    @property
    def xp(self) -> Any:
        """The array module (``numpy`` or ``cupy``) of :attr:`device`."""
        return self._device.xp

    def device_resident_accept(self, visitor: DeviceResidentsVisitor) -> None:
        """Lets ``visitor`` see this object; overrides also show it the arrays.

        Args:
            visitor: The visitor to accept.
        """
        visitor.visit_device_resident(self)

    def to_device(self: _DR, device: Any) -> _DR:
        """Moves every array this object owns to ``device``, in place.

        Args:
            device: A device specifier (``'@numpy'``, ``'@cupy:0'``, ``-1``,
                ``0``, a :class:`~kusari.backend.Device`...).

        Returns:
            This object.
        """
        target = backend.get_device(device)
        self.device_resident_accept(_ToDeviceVisitor(target, _legacy_call(target)))
        return self

    def to_cpu(self: _DR) -> _DR:
        """Moves every array to the host (NumPy). Returns this object.

        .. deprecated::
            As in Chainer 7, every call warns with a ``DeprecationWarning``;
            use ``to_device('@numpy')``.
        """
        _warn_deprecated_move("to_cpu")
        visitor = _ToDeviceVisitor(backend.CpuDevice(), ("to_cpu", {}), self)
        self.device_resident_accept(visitor)
        return self

    def to_gpu(self: _DR, device: Any = None) -> _DR:
        """Moves every array to a GPU (the current one if ``device`` is None).

        .. deprecated::
            As in Chainer 7, every call warns with a ``DeprecationWarning``;
            use ``to_device('@cupy:N')``.

        Args:
            device: GPU id or ``cupy.cuda.Device``; ``None`` for the current.

        Returns:
            This object.

        Raises:
            RuntimeError: CuPy is not available (before any warning).
        """
        cuda.check_cuda_available()
        _warn_deprecated_move("to_gpu")
        target = backend.get_device("@cupy" if device is None else device)
        visitor = _ToDeviceVisitor(target, ("to_gpu", {"device": device}), self)
        self.device_resident_accept(visitor)
        return self

    def to_intel64(self: _DR) -> _DR:
        """Chainer's move to an iDeep device, which kusari does not have.

        .. deprecated::
            Deprecated in Chainer 7 in favour of ``to_device('@intel64')``.

        Raises:
            RuntimeError: Always: iDeep is not available in kusari (checked
                first, as Chainer does, so no warning is emitted).
        """
        intel64.check_ideep_available()
        # Unreachable while iDeep is unavailable; kept so the order of checks
        # and warnings stays Chainer's if a backend ever appears.
        _warn_deprecated_move("to_intel64")  # pragma: no cover
        return self  # pragma: no cover


class DeviceResidentsVisitor:
    """Visitor over the arrays and variables that device residents own.

    Example:
        >>> class CountArrays(DeviceResidentsVisitor):
        ...     def __init__(self):
        ...         self.n = 0
        ...     def visit_device_resident(self, device_resident):
        ...         pass
        ...     def visit_array(self, arr):
        ...         self.n += 1
        ...         return arr
        ...     def visit_variable(self, param):
        ...         self.n += 1
    """

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        """Called once per resident object."""
        raise NotImplementedError

    def visit_array(self, arr: Any) -> Any:
        """Called for each plain array; returns the array to store back."""
        raise NotImplementedError

    def visit_variable(self, param: Any) -> None:
        """Called for each variable (parameters); updates it in place."""
        raise NotImplementedError


_LEGACY_TO_METHODS = ("to_cpu", "to_gpu", "to_intel64")
# The to_device spelling each deprecated move names in its warning (Chainer's
# words, which user code and tests match).
_DEVICE_NAMES = {"to_cpu": "@numpy", "to_gpu": "@cupy:N", "to_intel64": "@intel64"}


def _warn_deprecated_move(method: str) -> None:
    # stacklevel 3: attribute the warning to the caller of to_cpu/to_gpu, so
    # Python's default filters show it for code run as __main__.
    warnings.warn(
        f"{method} is deprecated. Please use to_device('{_DEVICE_NAMES[method]}') "
        "instead.",
        DeprecationWarning,
        stacklevel=3,
    )


_LegacyCall = tuple[str, dict[str, Any]]


def _legacy_call(device: backend.Device) -> _LegacyCall:
    """The to_cpu/to_gpu call equivalent to moving to ``device``."""
    if isinstance(device, backend.GpuDevice):
        return "to_gpu", {"device": device.device.id}
    return "to_cpu", {}


class _ToDeviceVisitor(DeviceResidentsVisitor):
    def __init__(
        self,
        device: backend.Device,
        legacy_call: _LegacyCall,
        start: DeviceResident | None = None,
    ) -> None:
        self._target = device
        self._legacy_call = legacy_call
        # The resident whose own to_cpu/to_gpu started the move; calling its
        # override again would recurse forever.
        self._start = start

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        device_resident._device = self._target
        name, kwargs = self._legacy_call
        if device_resident is not self._start and (
            name in device_resident._overridden_to_methods
        ):
            getattr(device_resident, name)(**kwargs)

    def visit_array(self, arr: Any) -> Any:
        return self._target.send(arr)

    def visit_variable(self, param: Any) -> None:
        param.to_device(self._target)
