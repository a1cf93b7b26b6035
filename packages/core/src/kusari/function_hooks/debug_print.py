"""PrintHook: prints what goes into every function, for debugging."""

from __future__ import annotations

import sys
import warnings
from typing import IO, Any

from kusari import backend, function_hook, variable


class PrintHook(function_hook.FunctionHook):
    """Prints each function's label, inputs and (in backward) output grads.

    Before every forward it writes ``function\\t<label>`` and, for each input,
    the :meth:`~kusari.Variable.debug_print` description (shape, dtype,
    statistics); before every backward it also describes the gradients of
    the outputs.

    Args:
        sep: Deprecated and ignored (kept for Chainer compatibility).
        end: Written after every message.
        file: Text stream to write to (``sys.stdout`` by default).
        flush: Flush ``file`` after each function.

    Example:
        >>> import io
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> from kusari.function_hooks import PrintHook
        >>> out = io.StringIO()
        >>> with PrintHook(file=out):
        ...     _ = F.relu(np.ones((2, 3), np.float32))
        >>> out.getvalue().splitlines()[0]
        'function\\tReLU'
        >>> '- shape: (2, 3)' in out.getvalue()
        True
    """

    name = "PrintHook"

    def __enter__(self) -> PrintHook:
        super().__enter__()
        return self

    def __init__(
        self,
        sep: str | None = None,
        end: str = "\n",
        file: IO[str] | None = None,
        flush: bool = True,
    ) -> None:
        if sep is not None:
            warnings.warn(
                "PrintHook: the sep argument is deprecated and ignored",
                DeprecationWarning,
                stacklevel=2,
            )
        self.sep = sep
        self.end = end
        # Looked up at call time when None so that redirected stdout works.
        self.file = file
        self.flush = flush

    def _write(self, out: IO[str], message: str) -> None:
        out.write(message + self.end)

    def _process(
        self, function: Any, in_data: tuple[Any, ...], out_grad: Any = None
    ) -> None:
        out = sys.stdout if self.file is None else self.file
        self._write(out, f"function\t{function.label}")
        self._write(out, "input data")
        for d in in_data:
            if d is None:
                # An input that was not retained for backward.
                self._write(out, "(removed)")
            else:
                self._write(out, variable.Variable(d).debug_print())
        if out_grad is not None:
            self._write(out, "output gradient")
            for g in out_grad:
                if g is None:
                    self._write(out, "(None)")
                    continue
                xp = backend.get_array_module(g)
                v = variable.Variable(xp.zeros_like(g))
                v.grad = g
                self._write(out, v.debug_print())
        if self.flush and hasattr(out, "flush"):
            out.flush()

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._process(function, in_data)

    def backward_preprocess(
        self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]
    ) -> None:
        self._process(function, in_data, out_grad)
