"""Classifier: a predictor plus a loss and an accuracy, reported."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kusari import link
from kusari.functions.loss import softmax_cross_entropy as sce_module


def _report(values: dict[str, Any], observer: Any) -> None:
    # The reporter belongs to the training layer; links report through it
    # when it is present, as Chainer's do.
    from kusari import reporter

    reporter.report(values, observer)


class Classifier(link.Chain):
    """Wrap a predictor: ``forward(*args, t)`` returns the loss.

    Args:
        predictor: The network computing scores from the inputs.
        lossfun: ``lossfun(y, t)``; softmax cross entropy by default.
        accfun: ``accfun(y, t)``; accuracy by default.
        label_key: Which argument is the label: an int position (default
            -1, the last) or a keyword name.

    Attributes:
        compute_accuracy: Report accuracy too (True by default).
        y, loss, accuracy: The results of the last call.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> loss = model(np.ones((4, 3), np.float32), np.zeros(4, np.int32))
        >>> loss.shape
        ()
    """

    compute_accuracy = True

    def __init__(
        self,
        predictor: link.Link,
        lossfun: Callable[..., Any] = sce_module.softmax_cross_entropy,
        accfun: Callable[..., Any] | None = None,
        label_key: int | str = -1,
    ) -> None:
        if not isinstance(label_key, (int, str)):
            raise TypeError(
                f"label_key must be int or str, but is {type(label_key)} (Classifier)"
            )
        super().__init__()
        self.lossfun = lossfun
        if accfun is None:
            from kusari.functions.evaluation.accuracy import accuracy

            accfun = accuracy
        self.accfun: Callable[..., Any] = accfun
        self.y: Any = None
        self.loss: Any = None
        self.accuracy: Any = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        if isinstance(self.label_key, int):
            if not -len(args) <= self.label_key < len(args):
                raise ValueError(
                    f"Label key {self.label_key} is out of bounds (Classifier "
                    f"got {len(args)} positional arguments)"
                )
            t = args[self.label_key]
            if self.label_key == -1:
                args = args[:-1]
            else:
                args = args[: self.label_key] + args[self.label_key + 1 :]
        else:
            if self.label_key not in kwargs:
                raise ValueError(
                    f'Label key "{self.label_key}" is not found (Classifier got '
                    f"keyword arguments {sorted(kwargs)})"
                )
            t = kwargs.pop(self.label_key)
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        values = {"loss": self.loss}
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
            values["accuracy"] = self.accuracy
        _report(values, self)
        return self.loss
