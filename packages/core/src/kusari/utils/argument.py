"""Keyword-argument checks under Chainer's names (``chainer.utils.argument``).

Example:
    >>> from kusari.utils import argument
    >>> kwargs = {'train': False}
    >>> argument.check_unexpected_kwargs(kwargs, train='use config.train')
    Traceback (most recent call last):
    ...
    ValueError: use config.train
"""

from __future__ import annotations

import inspect
from typing import Any


def check_unexpected_kwargs(kwargs: dict[str, Any], **unexpected: str) -> None:
    """Raise ``ValueError(message)`` for any key of ``unexpected`` in ``kwargs``
    (arguments that were removed, with the message saying what replaced them)."""
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def parse_kwargs(
    kwargs: dict[str, Any], *name_and_values: tuple[str, Any], **unexpected: str
) -> tuple[Any, ...]:
    """Pop each ``(name, default)`` from ``kwargs``, refuse the ``unexpected``
    ones with their messages, and raise ``TypeError`` for anything left."""
    values = [kwargs.pop(name, default) for name, default in name_and_values]
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        caller = inspect.stack()[1]
        names = ", ".join(repr(k) for k in sorted(kwargs))
        raise TypeError(
            f"{caller.function}() got unexpected keyword argument(s) {names}"
        )
    return tuple(values)


def assert_kwargs_empty(kwargs: dict[str, Any]) -> None:
    """Raise ``TypeError`` naming any keyword argument still in ``kwargs``."""
    parse_kwargs(kwargs)
