"""FailOnNonNumber: stop training when parameters become NaN or inf."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.training import extension


class FailOnNonNumber(extension.Extension):
    """Raise RuntimeError when a parameter (or, with ``check_grad``, a
    gradient) of any optimizer's target is not finite.

    Args:
        check_grad: Check the gradients too.
    """

    def __init__(self, *, check_grad: bool = True) -> None:
        self._check_grad = check_grad

    def __call__(self, trainer: Any) -> None:
        for name, optimizer in trainer.updater.get_all_optimizers().items():
            for param in optimizer.target.params(include_uninit=False):
                arrays = [("parameters", param.array)]
                if self._check_grad and param.grad is not None:
                    arrays.append(("gradients", param.grad))
                for what, array in arrays:
                    xp = backend.get_array_module(array)
                    if not bool(xp.isfinite(array).all()):
                        raise RuntimeError(
                            f"Kill the process since {what} in optimizer "
                            f"'{name}' diverge. R.I.P."
                        )
