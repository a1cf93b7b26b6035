"""Williams' episodic REINFORCE (``chainerrl.agents.REINFORCE``)."""

from __future__ import annotations

from collections.abc import Callable
from logging import Logger, getLogger
from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari_rl import agent
from kusari_rl.misc.batch_states import batch_states as default_batch_states

__all__ = ["REINFORCE"]


class REINFORCE(agent.AttributeSavingMixin, agent.Agent):
    """Episodic REINFORCE: the policy gradient with Monte Carlo returns.

    After every ``batchsize`` complete episodes the model is updated once on
    ``sum_t (-(R_t - b) log pi(a_t|s_t) - beta H[pi(.|s_t)]) / batchsize``,
    where ``R_t`` is the (undiscounted) sum of the rewards from step ``t`` to
    the end of the episode and ``b`` the baseline (0, or the mean return of
    the batch with ``baseline='mean'``).

    Observations and actions are stored as arrays; the log probabilities are
    recomputed in one batched forward pass at update time (the policy does
    not change between updates, so this equals keeping every step's graph).

    REINFORCE cannot complete the return of an episode cut by a time limit
    (it has no value function to bootstrap from), so, as in ChainerRL, such an
    episode (``stop_episode_and_train(..., done=False)``) is discarded.

    Args:
        model: Policy link: observations -> distribution.
        optimizer: Optimizer already set up with ``model``.
        beta: Weight of the entropy bonus.
        phi: Feature extractor applied to each observation.
        batchsize: Episodes per update.
        act_deterministically: Evaluate with the most probable action.
        average_entropy_decay: Decay of the ``average_entropy`` statistic.
        backward_separately: Run backward per episode and accumulate
            gradients (less memory for long episodes).
        batch_states: Function making a batch from observations.
        logger: Logger (default: this module's).
        baseline: ``None`` or ``'mean'`` (subtract the batch's mean return).
    """

    saved_attributes = ("model", "optimizer")

    def __init__(
        self,
        model: kusari.Link,
        optimizer: kusari.Optimizer,
        beta: float = 0.0,
        phi: Callable[[Any], Any] | None = None,
        batchsize: int = 1,
        act_deterministically: bool = False,
        average_entropy_decay: float = 0.999,
        backward_separately: bool = False,
        batch_states: Callable[..., Any] = default_batch_states,
        logger: Logger | None = None,
        baseline: str | None = None,
    ) -> None:
        if baseline not in (None, "mean"):
            raise ValueError(
                f"REINFORCE: baseline must be None or 'mean', got {baseline!r}"
            )
        if not isinstance(batchsize, int) or batchsize <= 0:
            raise ValueError(
                f"REINFORCE: batchsize must be a positive int, got {batchsize!r}"
            )
        self.model = model
        self.optimizer = optimizer
        self.xp = model.xp
        self.beta = beta
        self.phi = phi
        self.batchsize = batchsize
        self.act_deterministically = act_deterministically
        self.average_entropy_decay = average_entropy_decay
        self.backward_separately = backward_separately
        self.batch_states = batch_states
        self.logger = logger or getLogger(__name__)
        self.baseline = baseline
        self.average_entropy = 0.0
        self.t = 0
        self._warned_cut = False
        # Current episode and the finished ones waiting for an update.
        self._states: list[Any] = []
        self._actions: list[Any] = []
        self._rewards: list[float] = []
        self._episodes: list[tuple[Any, Any, numpy.ndarray]] = []

    # ---- acting ------------------------------------------------------------

    def _act_train(self, obs: Any) -> Any:
        state = self.batch_states([obs], self.xp, self.phi)
        with kusari.no_backprop_mode():
            action, _, ent = self.model(state).sample_arrays(True)
        entropy = float(ent[0])
        self._states.append(state)
        self._actions.append(action)
        self.t += 1
        self.average_entropy += (1 - self.average_entropy_decay) * (
            entropy - self.average_entropy
        )
        return kusari.backend.CpuDevice().send(action)[0]

    def _act_eval(self, obs: Any) -> Any:
        with kusari.no_backprop_mode():
            distrib = self.model(self.batch_states([obs], self.xp, self.phi))
            if self.act_deterministically:
                a = distrib.most_probable.array
            else:
                a = distrib.sample().array
        return kusari.backend.CpuDevice().send(a)[0]

    def _observe_train(self, reward: float, done: bool, end: bool) -> None:
        if len(self._rewards) < len(self._actions):
            self._rewards.append(float(reward))
        if not end:
            return
        if done:
            if self._actions:
                self._episodes.append(
                    (
                        self.xp.concatenate(self._states),
                        self.xp.concatenate(self._actions),
                        numpy.asarray(self._rewards, numpy.float32),
                    )
                )
        elif not self._warned_cut:
            self._warned_cut = True
            self.logger.info(
                "REINFORCE discards episodes cut without reaching a terminal "
                "state (it cannot bootstrap their returns)"
            )
        self._states, self._actions, self._rewards = [], [], []
        if len(self._episodes) >= self.batchsize:
            self._update()

    # ---- learning --------------------------------------------------------

    def _update(self) -> None:
        episodes, self._episodes = self._episodes, []
        returns = [
            numpy.cumsum(r[::-1])[::-1].astype(numpy.float32) for _, _, r in episodes
        ]
        base = float(numpy.mean(numpy.concatenate(returns))) if self.baseline else 0.0
        self.model.cleargrads()
        if self.backward_separately:
            for (states, actions, _), ret in zip(episodes, returns):
                self._episode_loss(states, actions, ret - base).backward()
        else:
            states = self.xp.concatenate([e[0] for e in episodes])
            actions = self.xp.concatenate([e[1] for e in episodes])
            self._episode_loss(
                states, actions, numpy.concatenate(returns) - base
            ).backward()
        self.optimizer.update()

    def _episode_loss(self, states: Any, actions: Any, weights: numpy.ndarray) -> Any:
        distrib = self.model(states)
        w = self.xp.asarray(weights.astype(numpy.float32))
        loss = -F.sum(w * distrib.log_prob(actions)) - self.beta * F.sum(
            distrib.entropy
        )
        return loss / float(self.batchsize)

    # ---- ChainerRL's and PFRL's conventions ------------------------------

    def act_and_train(self, obs: Any, reward: float) -> Any:
        self._driven_by_and_train = True
        self._observe_train(reward, False, False)
        return self._act_train(obs)

    def stop_episode_and_train(
        self, obs: Any, reward: float, done: bool = False
    ) -> None:
        self._driven_by_and_train = True
        self._observe_train(reward, done, True)

    def act(self, obs: Any) -> Any:
        if self._learning_act():
            return self._act_train(obs)
        return self._act_eval(obs)

    def observe(self, obs: Any, reward: float, done: bool, reset: bool) -> None:
        if self._learning_act():
            self._observe_train(reward, done, done or reset)

    def stop_episode(self) -> None:
        pass

    def get_statistics(self) -> list[tuple[str, Any]]:
        return [("average_entropy", self.average_entropy)]
