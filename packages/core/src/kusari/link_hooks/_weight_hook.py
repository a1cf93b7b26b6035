"""Shared machinery of hooks that replace a link's weight during forward."""

from __future__ import annotations

from typing import Any

from kusari import link_hook
from kusari.utils import size_of_shape


class _WeightReplacingHook(link_hook.LinkHook):
    """Swaps ``link.<weight_name>`` for a transformed Variable in forward.

    The link's attribute is the raw :class:`~kusari.Parameter` at all times
    except inside its forward, where the transformed weight (a Variable whose
    graph leads back to the parameter) takes its place, so gradients reach
    the raw parameter. Subclasses implement :meth:`_transform` and may
    override :meth:`_prepare`.
    """

    weight_name: str

    def __init__(self, weight_name: str, name: str | None) -> None:
        self.weight_name = weight_name
        if name is not None:
            self.name = name
        self._initialized = False
        self._saved: list[Any] = []

    def __enter__(self) -> Any:
        raise NotImplementedError(
            f"{type(self).__name__} is added to one link with link.add_hook(); "
            "it cannot be used as a context manager"
        )

    def __exit__(self, *exc: Any) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} cannot be used as a context manager"
        )

    def added(self, link: Any) -> None:
        if link is None:
            raise NotImplementedError(
                f"{type(self).__name__} must be added to a link with add_hook()"
            )
        if not hasattr(link, self.weight_name):
            raise ValueError(
                f"{type(self).__name__}: the link {type(link).__name__} has no "
                f"weight {self.weight_name!r}"
            )
        if getattr(link, self.weight_name).array is not None:
            self._prepare(link)
            self._initialized = True

    def _prepare(self, link: Any) -> None:
        """Sets up state once the weight has its array."""

    def _initialize_weight(self, link: Any, args: tuple[Any, ...]) -> None:
        """Initializes a lazily-shaped weight from the first input."""
        if getattr(link, self.weight_name).array is not None:
            return
        if not args or not hasattr(args[0], "shape"):
            raise ValueError(
                f"{type(self).__name__}: the weight {self.weight_name!r} is not "
                "initialized and no input array was given to infer its shape"
            )
        initialize = getattr(link, "_initialize_params", None)
        if initialize is None:
            raise ValueError(
                f"{type(self).__name__}: the weight {self.weight_name!r} of "
                f"{type(link).__name__} is not initialized"
            )
        from kusari.links.connection.linear import Linear

        shape = args[0].shape
        if isinstance(link, Linear):
            n_batch_axes = 1
            if len(args) > 1:
                n_batch_axes = args[1]
            n_batch_axes = args and n_batch_axes
            initialize(size_of_shape(shape[n_batch_axes:]))
        else:
            initialize(shape[1])

    def _transform(self, link: Any, weight: Any) -> Any:
        raise NotImplementedError

    def forward_preprocess(self, args: Any) -> None:
        link = args.link
        if not self._initialized:
            self._initialize_weight(link, args.args)
            self._prepare(link)
            self._initialized = True
        weight = getattr(link, self.weight_name)
        # A stack, so that a link called recursively still gets its parameter
        # back in the right order.
        self._saved.append(weight)
        try:
            transformed = self._transform(link, weight)
        except BaseException:
            self._saved.pop()
            raise
        object.__setattr__(link, self.weight_name, transformed)

    def forward_postprocess(self, args: Any) -> None:
        object.__setattr__(args.link, self.weight_name, self._saved.pop())
