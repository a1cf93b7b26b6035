"""Acting outside training with a moving average of the model's weights.

A policy read off the live weights changes with every optimizer step, and on
easy problems a greedy policy close to the maximum return can swing across
it from one evaluation to the next. Averaging the weights over recent
updates (Polyak averaging; in deep RL, e.g. Nikishin et al., 2018,
"Improving Stability in Deep Reinforcement Learning with Weight Averaging")
gives an evaluation policy that moves smoothly. Training still acts with,
and learns on, the live model; only evaluation acting (ChainerRL's
``act``/``batch_act``, PFRL's calls inside ``eval_mode()``) uses the
average.
"""

from __future__ import annotations

import copy
from typing import Any

from kusari_rl.misc.copy_param import soft_copy_param

__all__ = ["EvalAverageMixin", "check_eval_average_decay"]


def check_eval_average_decay(owner: str, decay: float | None) -> float | None:
    """``decay`` if it is None or in (0, 1), else a ValueError naming ``owner``."""
    if decay is None:
        return None
    if isinstance(decay, bool) or not isinstance(decay, (int, float)):
        raise TypeError(
            f"{owner}: eval_average_decay must be a float in (0, 1) or None, "
            f"got {type(decay).__name__}"
        )
    if not 0.0 < decay < 1.0:
        raise ValueError(
            f"{owner}: eval_average_decay must be in (0, 1) (or None to act "
            f"with the live model), got {decay!r}"
        )
    return float(decay)


class EvalAverageMixin:
    """Keeps ``eval_average_model``, an exponential moving average of
    ``model``'s parameters, when ``eval_average_decay`` is set.

    The agent calls :meth:`_init_eval_average` once its model is on its
    device, :meth:`_update_eval_average` after every optimizer step, and acts
    outside training with :meth:`_eval_model`.
    """

    model: Any
    eval_average_decay: float | None
    eval_average_model: Any
    eval_average_updates: int

    def _init_eval_average(self, decay: float | None) -> None:
        self.eval_average_decay = check_eval_average_decay(type(self).__name__, decay)
        self.eval_average_updates = 0
        self.eval_average_model = None
        if self.eval_average_decay is not None:
            self.eval_average_model = copy.deepcopy(self.model)
            # Never trained directly: only moved towards the model.
            self.eval_average_model.disable_update()

    def _update_eval_average(self) -> None:
        if self.eval_average_model is None:
            return
        assert self.eval_average_decay is not None
        # Bias-corrected (as Adam's moments): after n updates the average is
        # sum_i decay**(n - i) * w_i / sum_i decay**(n - i) over the weights
        # w_1..w_n after each update, so the initial weights carry no weight
        # and the first update's weights are the average. The step towards
        # w_n that does this is (1 - decay) / (1 - decay**n).
        n = self.eval_average_updates + 1
        decay = self.eval_average_decay
        soft_copy_param(
            self.eval_average_model, self.model, (1.0 - decay) / (1.0 - decay**n)
        )
        self.eval_average_updates = n

    def _eval_model(self) -> Any:
        """The model that acts outside training."""
        if self.eval_average_model is None:
            return self.model
        return self.eval_average_model
