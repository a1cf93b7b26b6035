import json
import os

import gymnasium as gym
import numpy as np
import pytest

import kusari
from kusari_rl import agents, experiments, explorers, misc, q_functions, replay_buffers
from kusari_rl.envs import ABC


def _read_json(path):
    with open(path) as f:
        return json.load(f)


def _read_text(path):
    with open(path) as f:
        return f.read()


def _dqn(env, seed=0, **kwargs):
    misc.set_random_seed(seed)
    n_obs = env.observation_space.shape[-1]
    n_act = (
        env.action_space.n
        if hasattr(env.action_space, "n")
        else env.single_action_space.n
    )
    q = q_functions.FCStateQFunctionWithDiscreteAction(n_obs, n_act, 16, 1)
    opt = kusari.optimizers.Adam(1e-2)
    opt.setup(q)
    kwargs.setdefault("replay_start_size", 20)
    kwargs.setdefault("target_update_interval", 10)
    explorer = explorers.LinearDecayEpsilonGreedy(
        1.0, 0.1, 200, lambda: np.random.randint(n_act)
    )
    return agents.DQN(
        q,
        opt,
        replay_buffers.ReplayBuffer(10**4),
        0.9,
        explorer,
        minibatch_size=8,
        **kwargs,
    )


def test_train_agent_with_evaluation_files(tmp_path):
    env, eval_env = ABC(), ABC()
    env.reset(seed=0)
    eval_env.reset(seed=1)
    agent = _dqn(env)
    outdir = str(tmp_path)
    history = experiments.train_agent_with_evaluation(
        agent,
        env,
        steps=300,
        eval_n_steps=None,
        eval_n_episodes=3,
        eval_interval=100,
        outdir=outdir,
        eval_env=eval_env,
    )
    assert [h["step"] for h in history] == [
        e["iteration"] for e in _read_json(tmp_path / "log")
    ]
    with open(tmp_path / "scores.txt") as f:
        header = f.readline().rstrip("\n").split("\t")
        rows = [line.split("\t") for line in f]
    assert header == [
        "steps",
        "episodes",
        "elapsed",
        "mean",
        "median",
        "stdev",
        "max",
        "min",
        "average_q",
        "average_loss",
        "n_updates",
        "rlen",
    ]
    assert len(rows) == len(history) >= 2
    log = _read_json(tmp_path / "log")
    assert set(log[0]) >= {"iteration", "episode", "elapsed_time", "mean", "average_q"}
    assert log[-1]["mean"] == pytest.approx(float(rows[-1][3]))
    assert os.path.exists(tmp_path / "best" / "model.npz")
    assert os.path.exists(tmp_path / "300_finish" / "model.npz")


def test_time_limit_truncation_bootstraps_in_loop(tmp_path):
    # Non-episodic ABC never terminates on a wrong press, so every episode
    # ends by truncation at 5 steps unless the sequence is completed.
    env = ABC(episodic=False, max_episode_steps=5)
    env.reset(seed=0)
    agent = _dqn(env, replay_start_size=10**6)
    experiments.train_agent(agent, env, steps=200, outdir=str(tmp_path))
    mem = [e[0] for e in agent.replay_buffer.memory]
    terminal = [m["is_state_terminal"] for m in mem]
    rewards = [m["reward"] for m in mem]
    # Terminal transitions are exactly the rewarded (completed) ones.
    assert terminal == [r == 1.0 for r in rewards]
    assert terminal.count(False) > 100


def test_prepare_output_dir(tmp_path):
    outdir = experiments.prepare_output_dir(
        {"lr": 0.1, "env": "X"}, str(tmp_path), argv=["train.py", "--lr", "0.1"]
    )
    assert os.path.dirname(outdir) == str(tmp_path)
    assert _read_json(os.path.join(outdir, "args")) == {"lr": 0.1, "env": "X"}
    assert _read_json(os.path.join(outdir, "args.txt")) == {"lr": 0.1, "env": "X"}
    assert _read_text(os.path.join(outdir, "command.txt")) == "train.py --lr 0.1"
    with pytest.raises(RuntimeError, match="already exists"):
        experiments.prepare_output_dir(
            {}, str(tmp_path), exp_id=os.path.basename(outdir)
        )


def test_eval_performance_single_and_vector():
    env = ABC()
    env.reset(seed=0)
    agent = _dqn(env)

    class Oracle:
        """Presses the right button: every episode returns 1 in 3 steps."""

        def __init__(self):
            self.training = True
            self.state = 0

        def eval_mode(self):
            return agent.eval_mode()

        def act(self, obs):
            return int(np.argmax(obs[:-1]))

        def batch_act(self, obss):
            return [int(np.argmax(o[:-1])) for o in obss]

        def batch_observe(self, *args):
            pass

        def stop_episode(self):
            pass

    stats = experiments.eval_performance(env, Oracle(), None, 4)
    assert stats == {"mean": 1.0, "median": 1.0, "stdev": 0.0, "max": 1.0, "min": 1.0}
    venv = experiments.make_vector_env([ABC] * 3)
    venv.reset(seed=0)
    stats = experiments.eval_performance(venv, Oracle(), None, 5)
    assert stats["mean"] == 1.0
    with pytest.raises(ValueError, match="exactly one of n_steps and n_episodes"):
        experiments.eval_performance(env, Oracle(), 10, 5)


@pytest.mark.parametrize(
    "mode", [gym.vector.AutoresetMode.SAME_STEP, gym.vector.AutoresetMode.NEXT_STEP]
)
def test_train_agent_batch_autoreset_modes(tmp_path, mode):
    venv = experiments.make_vector_env([ABC] * 2, autoreset=mode)
    venv.reset(seed=0)
    agent = _dqn(venv, replay_start_size=10**6)
    experiments.train_agent_batch_with_evaluation(
        agent,
        venv,
        steps=100,
        eval_n_steps=None,
        eval_n_episodes=2,
        eval_interval=50,
        outdir=str(tmp_path),
        eval_env=ABC(),
        max_episode_len=10,
    )
    mem = [e[0] for e in agent.replay_buffer.memory]
    assert len(mem) >= 90
    for m in mem:
        s, a, s2 = (
            np.argmax(m["state"][:-1]),
            m["action"],
            np.argmax(m["next_state"][:-1]),
        )
        # A transition is consistent with ABC's dynamics: right press moves
        # on (or completes), a wrong one terminates with the state unchanged.
        if a == s:
            assert s2 == min(s + 1, 2)
        else:
            assert m["is_state_terminal"] and s2 == s
    assert (tmp_path / "scores.txt").exists()
    with pytest.raises(ValueError, match="separate eval_env"):
        experiments.train_agent_batch_with_evaluation(
            agent,
            venv,
            steps=10,
            eval_n_steps=None,
            eval_n_episodes=1,
            eval_interval=5,
            outdir=str(tmp_path),
        )
    with pytest.raises(TypeError, match="vector env"):
        experiments.train_agent_with_evaluation(
            agent,
            venv,
            steps=10,
            eval_n_steps=None,
            eval_n_episodes=1,
            eval_interval=5,
            outdir=str(tmp_path),
        )


def test_snapshot_resume_is_exact(tmp_path):
    def run(outdir, steps, resume=None, snapshot_interval=None):
        env = gym.make("CartPole-v1")
        env.reset(seed=0)
        env.action_space.seed(0)
        agent = _dqn(env, seed=0)
        agent.explorer.random_action_func = env.action_space.sample
        experiments.train_agent_with_evaluation(
            agent,
            env,
            steps=steps,
            eval_n_steps=None,
            eval_n_episodes=1,
            eval_interval=10**6,
            outdir=str(outdir),
            snapshot_interval=snapshot_interval,
            resume=resume,
        )
        return agent

    full = run(tmp_path / "full", 400)
    run(tmp_path / "first", 250, snapshot_interval=100)
    snap = tmp_path / "first" / "snapshot"
    assert (snap / "state.pkl").exists() and (snap / "replay_buffer.pkl").exists()
    resumed = run(tmp_path / "second", 400, resume=str(snap))
    assert resumed.t == full.t == 400
    np.testing.assert_array_equal(
        resumed.model.model.output.W.array, full.model.model.output.W.array
    )
    assert len(resumed.replay_buffer) == len(full.replay_buffer)


def test_hooks():
    values = []
    hook = experiments.LinearInterpolationHook(
        10, 1.0, 0.0, lambda e, a, v: values.append(v)
    )
    for step in (0, 5, 10, 20):
        hook(None, None, step)
    assert values == [1.0, 0.5, 0.0, 0.0]


def test_check_env_spaces_messages():
    misc.check_env_spaces(ABC(), agent="DQN", action="discrete")
    with pytest.raises(
        ValueError, match=r"DQN needs a Discrete action space, got Box.*SAC"
    ):
        misc.check_env_spaces(gym.make("Pendulum-v1"), agent="DQN", action="discrete")
    with pytest.raises(ValueError, match="FlattenObservation"):
        misc.check_env_spaces(
            gym.spaces.Dict({"a": gym.spaces.Discrete(2)}), agent="DQN"
        )
    with pytest.raises(ValueError, match="continuous"):
        misc.check_env_spaces(ABC(), agent="DDPG", action="continuous")


def test_training_loop_rejects_unsupported_spaces_early(tmp_path):
    agent = _dqn(ABC())
    with pytest.raises(ValueError, match=r"DQN needs a Discrete action space, got Box"):
        experiments.train_agent(agent, gym.make("Pendulum-v1"), 10, str(tmp_path))

    dict_env = gym.wrappers.TransformObservation(
        ABC(),
        lambda o: {"x": o},
        gym.spaces.Dict({"x": ABC().observation_space}),
    )
    with pytest.raises(ValueError, match="FlattenObservation"):
        experiments.train_agent(agent, dict_env, 10, str(tmp_path))
    # With a phi the agent accepts any observation and leaves it to phi.
    q = q_functions.FCStateQFunctionWithDiscreteAction(4, 3, 8, 1)
    opt = kusari.optimizers.Adam()
    opt.setup(q)
    phi_agent = agents.DQN(
        q,
        opt,
        replay_buffers.ReplayBuffer(),
        0.9,
        explorers.Greedy(),
        replay_start_size=100,
        phi=lambda o: o["x"],
    )
    experiments.train_agent(phi_agent, dict_env, 5, str(tmp_path))
    assert phi_agent.t == 5


def test_train_agent_batch_with_async_vector_env(tmp_path):
    venv = experiments.make_vector_env([ABC] * 2, asynchronous=True)
    venv.reset(seed=0)
    agent = _dqn(venv, replay_start_size=10**6)
    try:
        experiments.train_agent_batch_with_evaluation(
            agent,
            venv,
            steps=40,
            eval_n_steps=None,
            eval_n_episodes=1,
            eval_interval=20,
            outdir=str(tmp_path),
            eval_env=ABC(),
            max_episode_len=5,
        )
    finally:
        venv.close()
    assert agent.t == 40 and len(agent.replay_buffer) >= 30


def test_batch_snapshot_resume_restores_agent_and_buffer(tmp_path):
    def make():
        venv = experiments.make_vector_env([ABC] * 2)
        venv.reset(seed=0)
        return venv, _dqn(venv, replay_start_size=10**6)

    venv, agent = make()
    experiments.train_agent_batch_with_evaluation(
        agent,
        venv,
        steps=60,
        eval_n_steps=None,
        eval_n_episodes=1,
        eval_interval=10**6,
        outdir=str(tmp_path / "a"),
        eval_env=ABC(),
        snapshot_interval=40,
    )
    venv2, resumed = make()
    experiments.train_agent_batch_with_evaluation(
        resumed,
        venv2,
        steps=60,
        eval_n_steps=None,
        eval_n_episodes=1,
        eval_interval=10**6,
        outdir=str(tmp_path / "b"),
        eval_env=ABC(),
        resume=str(tmp_path / "a" / "snapshot"),
    )
    assert resumed.t == 60
    # 40 transitions from the snapshot plus 20 new ones.
    assert len(resumed.replay_buffer) == 60
