"""What DDPG, TD3 and SAC share: acting, remembering and the batch plumbing.

The three agents differ only in how they turn a minibatch into updates and in
how the policy's distribution becomes an action; everything between the
environment and the replay buffer is the same, so it lives here once.

Truncation is not termination: a transition is stored as terminal only when
the environment says so (``done`` / ``batch_done``); an episode cut by a time
limit (``stop_episode_and_train(obs, r, done=False)`` or ``batch_reset``)
is stored as non-terminal, and the agents keep bootstrapping from it.
"""

from __future__ import annotations

import collections
from abc import abstractmethod
from collections.abc import Callable, Sequence
from logging import Logger
from typing import Any

import numpy as np

import kusari
from kusari.backends import cuda
from kusari_rl.agent import AttributeSavingMixin, BatchAgent
from kusari_rl.misc.batch_states import batch_states as default_batch_states
from kusari_rl.replay_buffer import ReplayUpdater


class RecordMean:
    """The mean of the last ``maxlen`` recorded numbers, cheap to record into.

    Statistics record one minibatch of Q-values per update; extending a deque
    element by element costs more than the update's arithmetic, so whole
    batches are kept (with their sizes) and averaged on demand.
    """

    def __init__(self, maxlen: int) -> None:
        self.maxlen = maxlen
        self._chunks: collections.deque[Any] = collections.deque()
        self._n = 0

    def extend(self, values: Any) -> None:
        values = np.asarray(cuda.to_cpu(values), dtype=np.float64).ravel()
        self._chunks.append(values)
        self._n += len(values)
        while self._chunks and self._n - len(self._chunks[0]) >= self.maxlen:
            self._n -= len(self._chunks.popleft())

    def append(self, value: float) -> None:
        self.extend(np.array([value]))

    def __len__(self) -> int:
        return min(self._n, self.maxlen)

    def mean(self) -> float:
        if not self._n:
            return float("nan")
        flat = np.concatenate(list(self._chunks))[-self.maxlen :]
        return float(flat.mean())


class ReplayActorCritic(AttributeSavingMixin, BatchAgent):
    """Base of the replay-based actor-critic agents (DDPG, TD3, SAC).

    Subclasses set ``policy`` (a link returning a distribution), implement
    :meth:`update` and :meth:`_n_policy_updates`, and may override
    :meth:`_training_action_from` / :meth:`_greedy_action_from`.
    """

    policy: Any
    explorer: Any = None
    xp: Any  # numpy or cupy: where the networks live
    # Acting state a resumable snapshot keeps (see experiments.snapshot), so
    # that a run resumed mid-episode continues exactly; subclasses add theirs.
    snapshot_attributes: Sequence[str] = (
        "t",
        "explorer",
        "last_state",
        "last_action",
        "batch_last_obs",
        "batch_last_action",
    )

    def _setup_acting(
        self,
        *,
        replay_buffer: Any,
        minibatch_size: int,
        replay_start_size: int,
        update_interval: int,
        n_times_update: int,
        phi: Callable[[Any], Any],
        batch_states: Callable[..., Any] | None,
        burnin_action_func: Callable[[], Any] | None,
        logger: Logger,
    ) -> None:
        if minibatch_size < 1 or update_interval < 1 or n_times_update < 1:
            raise ValueError(
                f"{type(self).__name__}: minibatch_size, update_interval and "
                "n_times_update must be >= 1; got "
                f"{minibatch_size}, {update_interval}, {n_times_update}"
            )
        self.replay_buffer = replay_buffer
        self.minibatch_size = minibatch_size
        self.replay_updater = ReplayUpdater(
            replay_buffer=replay_buffer,
            update_func=self.update,
            batchsize=minibatch_size,
            episodic_update=False,
            n_times_update=n_times_update,
            replay_start_size=replay_start_size,
            update_interval=update_interval,
        )
        self.phi = phi
        self.batch_states = (
            default_batch_states if batch_states is None else batch_states
        )
        self.burnin_action_func = burnin_action_func
        self.logger = logger
        self.t = 0
        self.last_state: Any = None
        self.last_action: Any = None
        self.batch_last_obs: list[Any] = []
        self.batch_last_action: list[Any] = []

    # ---- to be provided by subclasses ------------------------------------

    @abstractmethod
    def update(self, experiences: Any, errors_out: Any = None) -> None:
        """Update the networks from a list of sampled transitions."""

    @abstractmethod
    def _n_policy_updates(self) -> int:
        """How many times the policy has been updated (burn-in ends at 1)."""

    def _training_action_from(self, distrib: Any) -> Any:
        """The action array a training step takes (before the explorer)."""
        return distrib.sample().array

    def _greedy_action_from(self, distrib: Any) -> Any:
        """The action array an evaluation step takes."""
        return distrib.sample().array

    def _after_step(self) -> None:
        """Hook run once per training step, after ``t`` is incremented."""

    # ---- acting ------------------------------------------------------------

    def _burning_in(self) -> bool:
        return self.burnin_action_func is not None and self._n_policy_updates() == 0

    def _policy_actions(self, batch_obs: Sequence[Any], training: bool) -> Any:
        with kusari.no_backprop_mode(), kusari.using_config("train", False):
            xs = self.batch_states(batch_obs, self.xp, self.phi)
            distrib = self.policy(xs)
            if training:
                action = self._training_action_from(distrib)
            else:
                action = self._greedy_action_from(distrib)
        return cuda.to_cpu(action)

    def _explore(self, greedy: Any) -> Any:
        if self.explorer is None:
            return greedy
        return self.explorer.select_action(self.t, lambda: greedy)

    def act_and_train(self, obs: Any, reward: float) -> Any:
        if self._burning_in():
            action = self.burnin_action_func()  # type: ignore[misc]
        else:
            action = self._explore(self._policy_actions([obs], True)[0])
        self.t += 1
        self._after_step()
        if self.last_state is not None:
            self.replay_buffer.append(
                state=self.last_state,
                action=self.last_action,
                reward=reward,
                next_state=obs,
                next_action=action,
                is_state_terminal=False,
            )
        self.last_state = obs
        self.last_action = action
        self.replay_updater.update_if_necessary(self.t)
        return action

    def act(self, obs: Any) -> Any:
        return self._policy_actions([obs], False)[0]

    def stop_episode_and_train(
        self, obs: Any, reward: float, done: bool = False
    ) -> None:
        if self.last_state is None:
            raise RuntimeError(
                f"{type(self).__name__}.stop_episode_and_train: no action was "
                "taken in this episode; call act_and_train first"
            )
        self.replay_buffer.append(
            state=self.last_state,
            action=self.last_action,
            reward=reward,
            next_state=obs,
            next_action=self.last_action,
            is_state_terminal=bool(done),
        )
        self.stop_episode()

    def stop_episode(self) -> None:
        self.last_state = None
        self.last_action = None
        self.replay_buffer.stop_current_episode()

    def batch_act(self, batch_obs: Sequence[Any]) -> Sequence[Any]:
        return list(self._policy_actions(batch_obs, False))

    def batch_act_and_train(self, batch_obs: Sequence[Any]) -> Sequence[Any]:
        if self._burning_in():
            batch_action = [self.burnin_action_func() for _ in batch_obs]  # type: ignore[misc]
        else:
            greedy = self._policy_actions(batch_obs, True)
            batch_action = [self._explore(a) for a in greedy]
        self.batch_last_obs = list(batch_obs)
        self.batch_last_action = list(batch_action)
        return batch_action

    def batch_observe_and_train(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Sequence[bool],
        batch_reset: Sequence[bool],
    ) -> None:
        for i in range(len(batch_obs)):
            self.t += 1
            self._after_step()
            if self.batch_last_obs[i] is not None:
                self.replay_buffer.append(
                    state=self.batch_last_obs[i],
                    action=self.batch_last_action[i],
                    reward=batch_reward[i],
                    next_state=batch_obs[i],
                    next_action=None,
                    is_state_terminal=bool(batch_done[i]),
                    env_id=i,
                )
                if batch_reset[i] or batch_done[i]:
                    self.batch_last_obs[i] = None
                    self.replay_buffer.stop_current_episode(env_id=i)
            self.replay_updater.update_if_necessary(self.t)

    def batch_observe(
        self,
        batch_obs: Sequence[Any],
        batch_reward: Sequence[float],
        batch_done: Sequence[bool],
        batch_reset: Sequence[bool],
    ) -> None:
        # Evaluation keeps no per-episode state.
        return None
