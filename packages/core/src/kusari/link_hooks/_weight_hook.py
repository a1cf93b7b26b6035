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
        self._saved: tuple[Any, Any] | None = None

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

    def _initialize_weight(self, link: Any, args: Any) -> None:
        """Initializes a lazily-shaped weight from the first input."""
        if getattr(link, self.weight_name).array is not None:
            return
        inputs = args.args
        x = inputs[0] if inputs else args.kwargs.get("x")
        initialize = getattr(link, "_initialize_params", None)
        if initialize is None or not hasattr(x, "shape"):
            raise ValueError(
                f"{type(self).__name__}: the weight {self.weight_name!r} of "
                f"{type(link).__name__} is not initialized and cannot be "
                "inferred from the call's arguments"
            )
        from kusari.links.connection.linear import Linear

        if isinstance(link, Linear):
            # Linear flattens everything after the batch axes.
            n_batch_axes = inputs[1] if len(inputs) > 1 else None
            if n_batch_axes is None:
                n_batch_axes = args.kwargs.get("n_batch_axes", 1)
            initialize(size_of_shape(x.shape[n_batch_axes:]))
        else:
            initialize(x.shape[1])

    def _transform(self, link: Any, weight: Any) -> Any:
        raise NotImplementedError

    def forward_preprocess(self, args: Any) -> None:
        link = args.link
        if self._saved is not None and self._saved[0] is link:
            # The last forward raised before forward_postprocess could put
            # the parameter back: do it now.
            setattr(link, self.weight_name, self._saved[1])
            self._saved = None
        if not self._initialized:
            self._initialize_weight(link, args)
            self._prepare(link)
            self._initialized = True
        weight = getattr(link, self.weight_name)
        transformed = self._transform(link, weight)
        self._saved = (link, weight)
        setattr(link, self.weight_name, transformed)

    def forward_postprocess(self, args: Any) -> None:
        saved = self._saved
        if saved is not None:
            self._saved = None
            setattr(saved[0], self.weight_name, saved[1])
