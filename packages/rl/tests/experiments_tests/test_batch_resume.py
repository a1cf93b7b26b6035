"""Exact resume of ``train_agent_batch_with_evaluation`` from a snapshot."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import kusari
from kusari_rl import agents, experiments, explorers, misc, q_functions, replay_buffers
from kusari_rl.experiments import snapshot


def _agent(num_steps=1):
    misc.set_random_seed(0)
    q = q_functions.FCStateQFunctionWithDiscreteAction(4, 2, 16, 1)
    opt = kusari.optimizers.Adam(1e-2)
    opt.setup(q)
    return agents.DQN(
        q,
        opt,
        replay_buffers.ReplayBuffer(10**4, num_steps=num_steps),
        0.9,
        # Draws from NumPy's global RNG, which the snapshot keeps.
        explorers.LinearDecayEpsilonGreedy(1.0, 0.1, 200, lambda: np.random.randint(2)),
        replay_start_size=20,
        minibatch_size=8,
        target_update_interval=10,
    )


def _run(outdir, steps, mode, resume=None, snapshot_interval=None, num_steps=1):
    venv = experiments.make_vector_env(
        [lambda: gym.make("CartPole-v1")] * 3, autoreset=mode
    )
    venv.reset(seed=0)
    eval_env = gym.make("CartPole-v1")
    eval_env.reset(seed=1)
    agent = _agent(num_steps)
    try:
        history = experiments.train_agent_batch_with_evaluation(
            agent,
            venv,
            steps=steps,
            eval_n_steps=None,
            eval_n_episodes=2,
            eval_interval=90,
            outdir=str(outdir),
            eval_env=eval_env,
            snapshot_interval=snapshot_interval,
            resume=resume,
            save_best_so_far_agent=False,
        )
    finally:
        venv.close()
    return agent, history


def _transitions(agent):
    memory = agent.replay_buffer.memory
    return [
        (np.asarray(e[0]["state"]).tolist(), int(e[0]["action"]), e[0]["reward"])
        for e in (memory[i] for i in range(len(memory)))
    ]


@pytest.mark.parametrize(
    "mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP], ids=lambda m: m.name
)
@pytest.mark.parametrize("num_steps", [1, 3])
def test_interrupted_and_resumed_run_equals_uninterrupted_run(
    tmp_path, mode, num_steps
):
    full, full_history = _run(tmp_path / "full", 450, mode, num_steps=num_steps)
    # Stopped at 270 with a snapshot at 240, in the middle of the episodes
    # of the three CartPole sub-envs.
    _run(tmp_path / "first", 270, mode, snapshot_interval=120, num_steps=num_steps)
    snap = tmp_path / "first" / "snapshot"
    resumed, resumed_history = _run(
        tmp_path / "second", 450, mode, resume=str(snap), num_steps=num_steps
    )
    assert resumed.t == full.t == 450
    for name in ("model", "target_model"):
        for (path, p), (_, q) in zip(
            sorted(getattr(full, name).namedparams()),
            sorted(getattr(resumed, name).namedparams()),
        ):
            np.testing.assert_array_equal(p.array, q.array, err_msg=path)
    assert _transitions(resumed) == _transitions(full)
    assert resumed.explorer.compute_epsilon(resumed.t) == full.explorer.compute_epsilon(
        full.t
    )
    # Evaluations after the snapshot see the same agent and eval-env RNG.
    after = [h for h in full_history if h["step"] > 240]
    assert after and resumed_history == after


def test_vector_env_state_round_trip_continues_the_episodes():
    def make():
        venv = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
        venv.reset(seed=3)
        return venv

    venv = make()
    for _ in range(5):
        venv.step(np.array([0, 1]))
    state = snapshot.vector_env_state(venv)
    assert state is not None and state["skipped"] == []
    expected = [venv.step(np.array([1, 0]))[0] for _ in range(4)]
    other = make()
    snapshot.set_vector_env_state(other, state)
    got = [other.step(np.array([1, 0]))[0] for _ in range(4)]
    np.testing.assert_array_equal(np.stack(got), np.stack(expected))
    # TimeLimit's step count came along: 5 + 4 steps into the episode.
    assert other.envs[0].get_wrapper_attr("_elapsed_steps") == 9


def test_set_vector_env_state_rejects_a_different_env():
    venv = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
    venv.reset(seed=0)
    state = snapshot.vector_env_state(venv)
    three = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 3)
    with pytest.raises(ValueError, match="set_vector_env_state: .* 2 sub-envs.* 3"):
        snapshot.set_vector_env_state(three, state)
    unwrapped = gym.vector.SyncVectorEnv(
        [lambda: gym.make("CartPole-v1").unwrapped] * 2
    )
    with pytest.raises(ValueError, match="sub-env 0 is"):
        snapshot.set_vector_env_state(unwrapped, state)


def test_async_vector_env_has_no_capturable_state():
    venv = gym.vector.AsyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
    try:
        assert snapshot.vector_env_state(venv) is None
    finally:
        venv.close()
