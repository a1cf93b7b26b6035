"""Helpers shared by the update rules."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.backends import cuda


def zeros_like_param(param: Any) -> Any:
    """A zero array shaped and placed like ``param.array``."""
    return backend.get_array_module(param.array).zeros_like(param.array)


def kernel(in_params: str, out_params: str, operation: str, name: str) -> Any:
    """A cached CuPy elementwise kernel (only called on GPU arrays)."""
    return cuda.elementwise(in_params, out_params, operation, name)


def set_hyperparams(rule: Any, **values: Any) -> None:
    """Override the rule's hyperparameters that are not None."""
    for key, value in values.items():
        if value is not None:
            setattr(rule.hyperparam, key, value)
