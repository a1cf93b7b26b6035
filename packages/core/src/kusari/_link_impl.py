"""Helpers of :mod:`kusari.link` that are not part of the Link API."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy

from kusari import backend, link_hook
from kusari.backends import cuda

COPY_MODES = ("share", "copy", "init")


def check_copy_mode(mode: str) -> None:
    if mode not in COPY_MODES:
        raise ValueError(
            "The 'mode' argument should be either 'init', 'copy', or 'share'. "
            f"But {mode!r} was given."
        )


def is_array(value: Any) -> bool:
    """Whether ``value`` is a NumPy or CuPy array (not a scalar)."""
    return isinstance(value, numpy.ndarray) or (
        cuda.available and isinstance(value, cuda.ndarray)
    )


def copy_param_data(dst: Any, src: Any) -> None:
    """Copies the values of parameter ``src`` into parameter ``dst``.

    An uninitialized side is first initialized with the other's shape, as
    ``Variable.copydata`` does in Chainer.
    """
    src_array, dst_array = src.array, dst.array
    if src_array is None:
        if dst_array is None:
            return
        src.initialize(dst_array.shape)
        src_array = src.array
    elif dst_array is None:
        dst.initialize(src_array.shape)
        dst_array = dst.array
    backend.copyto(dst_array, src_array)


def ensure_shape_dtype(value: Any) -> tuple[Any, Any]:
    """Reads a legacy ``Link(name=shape)`` or ``Link(name=(shape, dtype))``."""
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[1], (type, numpy.dtype, str))
    ):
        return value[0], value[1]
    return value, numpy.float32


def indent_block(text: str) -> str:
    """Indents every line of ``text`` by two spaces (for nested reprs)."""
    return "".join(f"  {line}\n" for line in text.splitlines())


def format_tree(name: str, specs: str, items: list[tuple[str, str]]) -> str:
    """``name(specs)``, or one ``(key): repr,`` line per item below the specs.

    Example: ``Chain(\n  (l1): Linear(in_size=2, out_size=3, nobias=False),\n)``.
    """
    if not items:
        return f"{name}({specs})"
    lines = [f"{specs},"] if specs else []
    lines += [f"({key}): {rep}," for key, rep in items]
    return f"{name}(\n" + "".join(indent_block(line) for line in lines) + ")"


def call_with_hooks(
    link: Any,
    forward: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    local_hooks: Mapping[str, link_hook.LinkHook] | None,
) -> Any:
    """Runs ``forward`` between the thread-wide and the link's own hooks."""
    hooks = list(link_hook._get_link_hooks().values())
    if local_hooks:
        hooks += local_hooks.values()
    if not hooks:
        return forward(*args, **kwargs)
    pre = link_hook._ForwardPreprocessCallbackArgs(link, "forward", args, kwargs)
    for hook in hooks:
        hook.forward_preprocess(pre)
    out = forward(*args, **kwargs)
    post = link_hook._ForwardPostprocessCallbackArgs(link, "forward", args, kwargs, out)
    for hook in hooks:
        hook.forward_postprocess(post)
    return out
