"""An update-rule hook that multiplies a parameter's gradient by a constant."""

from __future__ import annotations

from typing import Any

from kusari import backend


class GradientScaling:
    """Multiply the gradient by ``rate`` before the update.

    SSD trains its biases with twice the learning rate of the weights; add
    this hook to the biases' update rules for that.

    Args:
        rate: Factor applied to the gradient.

    Example:
        >>> import kusari.links as L
        >>> from kusari import optimizers
        >>> link = L.Linear(2, 2)
        >>> opt = optimizers.SGD(lr=0.1)
        >>> _ = opt.setup(link)
        >>> link.b.update_rule.add_hook(GradientScaling(2))
    """

    name = "GradientScaling"
    call_for_each_param = True
    timing = "pre"

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rate={self.rate})"

    def __call__(self, rule: Any, param: Any) -> None:
        grad = param.grad
        if grad is None:
            return
        xp = backend.get_array_module(grad)
        # in place so the optimizer keeps the same gradient buffer
        xp.multiply(grad, grad.dtype.type(self.rate), out=grad)
