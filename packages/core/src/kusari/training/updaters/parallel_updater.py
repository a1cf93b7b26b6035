"""ParallelUpdater: data parallelism over several devices in one process."""

from __future__ import annotations

import copy
from typing import Any

from kusari import backend
from kusari.dataset import convert
from kusari.function import force_backprop_mode
from kusari.training.updaters.standard_updater import StandardUpdater


class ParallelUpdater(StandardUpdater):
    """Split each batch over model copies, sum their gradients into the main
    model, update it, and copy the parameters back.

    Args:
        iterator: Iterator(s), as for :class:`StandardUpdater`.
        optimizer: Optimizer(s); the main one's target is the main model.
        converter: The batch converter.
        models: ``{name: model}`` with a ``'main'`` entry, or None to copy
            the main model onto each of ``devices``.
        devices: ``{name: device}`` with a ``'main'`` entry.
        loss_func: The loss function; each model by default.
        loss_scale: A fixed loss scale.
        auto_new_epoch: As for :class:`StandardUpdater`.
    """

    def __init__(
        self,
        iterator: Any,
        optimizer: Any,
        converter: Any = convert.concat_examples,
        models: dict[str, Any] | None = None,
        devices: dict[str, Any] | None = None,
        loss_func: Any = None,
        loss_scale: float | None = None,
        auto_new_epoch: bool = True,
    ) -> None:
        super().__init__(
            iterator,
            optimizer,
            converter=converter,
            loss_func=loss_func,
            loss_scale=loss_scale,
            auto_new_epoch=auto_new_epoch,
        )
        main_opt = self.get_optimizer("main")
        if models is None:
            if devices is None:
                raise ValueError("ParallelUpdater: give models or devices")
            if "main" not in devices:
                raise KeyError("ParallelUpdater: devices must have a 'main' key")
            models = {"main": main_opt.target}
            for name, device in devices.items():
                if name == "main":
                    continue
                model = copy.deepcopy(main_opt.target)
                model.to_device(device)
                models[name] = model
            main_opt.target.to_device(devices["main"])
        elif "main" not in models:
            raise KeyError("ParallelUpdater: models must have a 'main' key")
        if devices is None:
            devices = dict.fromkeys(models)
        self._devices = {
            k: (None if v is None else backend.get_device(v))
            for k, v in devices.items()
        }
        self._models = models

    def connect_trainer(self, trainer: Any) -> None:
        main = self.get_optimizer("main").target
        for name, model in self._models.items():
            if model is not main:
                trainer.reporter.add_observer(name, model)

    def update_core(self) -> None:
        optimizer = self.get_optimizer("main")
        main = optimizer.target
        others = [m for m in self._models.values() if m is not main]
        iterator = self.get_iterator("main")
        batch = iterator.next()
        n = len(self._models)
        inputs = {
            key: convert.call_converter(
                self.converter, batch[i::n], self._devices.get(key)
            )
            for i, key in enumerate(self._models)
        }
        for model in self._models.values():
            model.cleargrads()
        losses = []
        for key, model in self._models.items():
            in_arrays = inputs[key]
            loss_func = self.loss_func or model
            with force_backprop_mode():
                if isinstance(in_arrays, tuple):
                    loss = loss_func(*in_arrays)
                elif isinstance(in_arrays, dict):
                    loss = loss_func(**in_arrays)
                else:
                    loss = loss_func(in_arrays)
            losses.append(loss)
        for model in self._models.values():
            model.cleargrads()
        for loss in losses:
            loss.backward(loss_scale=self.loss_scale)
        for model in others:
            main.addgrads(model)
        optimizer.update()
        for model in others:
            model.copyparams(main)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)
