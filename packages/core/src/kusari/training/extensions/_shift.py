"""Shared machinery of the hyperparameter-shift extensions."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.training import extension


class ValueShift(extension.Extension):
    """Base of extensions that set an optimizer attribute each call.

    Subclasses implement :meth:`_compute` (the value at ``self._t``); the
    value is written as ``setattr(optimizer, attr, value)``. ``_t`` and the
    last value are serialized, and ``initialize`` re-applies the last value
    after a resume.
    """

    def __init__(
        self, attr: str, init: float | None = None, optimizer: Any = None
    ) -> None:
        self._attr = attr
        self._init = init
        self._optimizer = optimizer
        self._t = 0
        self._last_value: float | None = None

    def _get_optimizer(self, trainer: Any) -> Any:
        return self._optimizer or trainer.updater.get_optimizer("main")

    def _update_value(self, optimizer: Any, value: float) -> None:
        setattr(optimizer, self._attr, value)
        self._last_value = value

    def _initial_value(self) -> float | None:
        """The value set by ``initialize`` on a fresh start."""
        return self._init

    def initialize(self, trainer: Any) -> None:
        optimizer = self._get_optimizer(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        if self._last_value is not None:
            self._update_value(optimizer, self._last_value)
        else:
            value = self._initial_value()
            if value is not None:
                self._update_value(optimizer, value)

    def __call__(self, trainer: Any) -> None:
        self._t += 1
        value = self._compute()
        if value is not None:
            self._update_value(self._get_optimizer(trainer), value)

    def _compute(self) -> float | None:
        raise NotImplementedError

    def serialize(self, serializer: Any) -> None:
        self._t = serializer("_t", self._t)
        last = serializer("_last_value", self._last_value)
        if isinstance(last, (numpy.ndarray, numpy.generic)):
            last = last.item()
        self._last_value = last


def clamp(value: float, target: float | None, growing: bool) -> float:
    """Stop ``value`` at ``target`` (from below if growing, else from above);
    written with a ratio so negative values work too."""
    if target is None:
        return value
    if growing:
        return target if value / target > 1 else value
    return target if value / target < 1 else value
