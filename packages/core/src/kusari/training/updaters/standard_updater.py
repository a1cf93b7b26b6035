"""StandardUpdater: one batch, one loss, one optimizer step per iteration."""

from __future__ import annotations

from typing import Any

from kusari import backend
from kusari.dataset import convert
from kusari.dataset.iterator import Iterator
from kusari.training._updater import Updater


class StandardUpdater(Updater):
    """The standard updater: one batch from ``iterator``, one
    ``optimizer.update(loss_func, *batch)``.

    Args:
        iterator: An iterator, or a dict of them with a ``'main'`` one.
        optimizer: An optimizer, or a dict of them with a ``'main'`` one.
        converter: Turns a list of examples into arrays
            (:func:`~kusari.dataset.concat_examples` by default).
        device: Where to send the model and the batches.
        loss_func: The loss function; the main optimizer's target by default.
        loss_scale: A fixed loss scale for float16 training.
        auto_new_epoch: Call ``optimizer.new_epoch(auto=True)`` at each new
            epoch.
        input_device: Where to send the batches (``device`` by default).

    Attributes:
        iteration: Number of completed updates.
        converter, loss_func, loss_scale, auto_new_epoch: As given.
    """

    def __init__(
        self,
        iterator: Any,
        optimizer: Any,
        converter: Any = convert.concat_examples,
        device: Any = None,
        loss_func: Any = None,
        loss_scale: float | None = None,
        auto_new_epoch: bool = True,
        *,
        input_device: Any = None,
    ) -> None:
        if device is not None:
            device = backend.get_device(device)
        if isinstance(iterator, Iterator) or not isinstance(iterator, dict):
            iterator = {"main": iterator}
        self._iterators: dict[str, Any] = iterator
        if not isinstance(optimizer, dict):
            optimizer = {"main": optimizer}
        self._optimizers: dict[str, Any] = optimizer
        if device is not None:
            for opt in self._optimizers.values():
                opt.target.to_device(device)
        self.converter = converter
        self.loss_func = loss_func
        self.iteration = 0
        self._device = device
        self._input_device = (
            device if input_device is None else backend.get_device(input_device)
        )
        self.loss_scale = loss_scale
        if loss_scale is not None:
            for opt in self._optimizers.values():
                opt.set_loss_scale(loss_scale)
        self.auto_new_epoch = auto_new_epoch
        if auto_new_epoch:
            for opt in self._optimizers.values():
                opt.use_auto_new_epoch = True

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(iteration={self.iteration}, "
            f"iterators={list(self._iterators)}, "
            f"optimizers={list(self._optimizers)})"
        )

    @property
    def device(self) -> Any:
        """The device of the model (None if not moved)."""
        return self._device

    @property
    def input_device(self) -> Any:
        """The device the batches are sent to."""
        return self._input_device

    @property
    def epoch(self) -> int:
        return int(self._iterators["main"].epoch)

    @property
    def epoch_detail(self) -> float:
        return float(self._iterators["main"].epoch_detail)

    @property
    def previous_epoch_detail(self) -> float | None:
        return self._iterators["main"].previous_epoch_detail

    @property
    def is_new_epoch(self) -> bool:
        return bool(self._iterators["main"].is_new_epoch)

    def finalize(self) -> None:
        for iterator in self._iterators.values():
            iterator.finalize()

    def get_optimizer(self, name: str) -> Any:
        return self._optimizers[name]

    def get_all_optimizers(self) -> dict[str, Any]:
        return dict(self._optimizers)

    def get_iterator(self, name: str) -> Any:
        return self._iterators[name]

    def update(self) -> None:
        """Run one update and count it."""
        self.update_core()
        self.iteration += 1

    def update_core(self) -> None:
        iterator = self._iterators["main"]
        batch = iterator.next()
        in_arrays = convert.call_converter(self.converter, batch, self._input_device)
        optimizer = self._optimizers["main"]
        loss_func = self.loss_func or optimizer.target
        if isinstance(in_arrays, tuple):
            optimizer.update(loss_func, *in_arrays)
        elif isinstance(in_arrays, dict):
            optimizer.update(loss_func, **in_arrays)
        else:
            optimizer.update(loss_func, in_arrays)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer: Any) -> None:
        """Save or load the iterators (with their order samplers' random
        state), the optimizers, the models and ``iteration``."""
        for name, iterator in self._iterators.items():
            iterator.serialize(serializer["iterator:" + name])
            # Iterators save the current epoch's order; the next orders come
            # from the sampler's random state (e.g. a ShuffleOrderSampler's),
            # which an exact resume needs too. Files without it still load.
            sampler = getattr(iterator, "order_sampler", None)
            serialize_sampler = getattr(sampler, "serialize", None)
            if callable(serialize_sampler):
                serialize_sampler(serializer["order_sampler:" + name])
        for name, opt in self._optimizers.items():
            opt.serialize(serializer["optimizer:" + name])
            opt.target.serialize(serializer["model:" + name])
        self.iteration = serializer("iteration", self.iteration)
