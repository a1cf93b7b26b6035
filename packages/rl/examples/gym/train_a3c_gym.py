"""Train A3C on a Gymnasium environment (ChainerRL's ``train_a3c_gym.py``).

Worker processes share the model's parameters and RMSprop's statistics in
shared memory and update them without locks.

    python train_a3c_gym.py --env CartPole-v1 --processes 4 --steps 200000
    python train_a3c_gym.py --env CartPole-v1 --demo --load results/.../best
"""

from __future__ import annotations

import argparse
import logging
import sys

import gymnasium as gym
import numpy as np

import kusari.functions as F
from kusari.optimizer_hooks import GradientClipping
from kusari_rl import experiments, misc, policies, v_functions
from kusari_rl.agents import A3C
from kusari_rl.agents.a3c import A3CSeparateModel
from kusari_rl.optimizers import RMSpropAsync


def make_model(obs_space: gym.Space, action_space: gym.Space) -> A3CSeparateModel:
    if not isinstance(obs_space, gym.spaces.Box) or len(obs_space.shape) != 1:
        sys.exit(
            f"train_a3c_gym.py needs a 1-D Box observation space, got {obs_space}; "
            "flatten the observations with gymnasium.wrappers.FlattenObservation"
        )
    obs_size = obs_space.shape[0]
    if isinstance(action_space, gym.spaces.Discrete):
        pi = policies.FCSoftmaxPolicy(
            obs_size, action_space, 2, 64, nonlinearity=F.tanh, last_wscale=0.01
        )
    elif isinstance(action_space, gym.spaces.Box) and len(action_space.shape) == 1:
        pi = policies.FCGaussianPolicyWithStateIndependentCovariance(
            obs_size,
            action_space,
            2,
            64,
            nonlinearity=F.tanh,
            mean_wscale=0.01,
            var_type="diagonal",
        )
    else:
        sys.exit(
            f"train_a3c_gym.py supports Discrete and 1-D Box action spaces, got "
            f"{action_space}; wrap the environment to flatten its action space"
        )
    return A3CSeparateModel(pi, v_functions.FCVFunction(obs_size, 2, 64, F.tanh))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", type=str, default="CartPole-v1")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--outdir", type=str, default="results")
    parser.add_argument("--t-max", type=int, default=5)
    parser.add_argument("--beta", type=float, default=1e-2)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--steps", type=int, default=8 * 10**6)
    parser.add_argument("--eval-interval", type=int, default=10**5)
    parser.add_argument("--eval-n-runs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=7e-4)
    parser.add_argument("--rmsprop-epsilon", type=float, default=1e-1)
    parser.add_argument("--max-grad-norm", type=float, default=40.0)
    parser.add_argument("--max-episode-len", type=int, default=None)
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--load", type=str, default="")
    parser.add_argument("--logger-level", type=int, default=logging.INFO)
    args = parser.parse_args(argv)

    logging.basicConfig(level=args.logger_level)
    misc.set_random_seed(args.seed)
    outdir = experiments.prepare_output_dir(args, args.outdir, argv=argv)

    def make_env(process_idx: int, test: bool) -> gym.Env:
        env = gym.make(args.env)
        if isinstance(env.action_space, gym.spaces.Box):
            env = gym.wrappers.ClipAction(env)
        # Each worker (and the test envs) gets its own seed.
        env.reset(
            seed=args.seed * args.processes + process_idx + (2**31 if test else 0)
        )
        return env

    sample_env = gym.make(args.env)
    model = make_model(sample_env.observation_space, sample_env.action_space)
    sample_env.close()
    opt = RMSpropAsync(lr=args.lr, eps=args.rmsprop_epsilon, alpha=0.99)
    opt.setup(model)
    opt.add_hook(GradientClipping(args.max_grad_norm))
    agent = A3C(
        model,
        opt,
        t_max=args.t_max,
        gamma=args.gamma,
        beta=args.beta,
        act_deterministically=True,
        phi=lambda x: np.asarray(x, dtype=np.float32),
    )
    if args.load:
        agent.load(args.load)

    if args.demo:
        stats = experiments.eval_performance(
            env=make_env(0, True),
            agent=agent,
            n_steps=None,
            n_episodes=args.eval_n_runs,
            max_episode_len=args.max_episode_len,
        )
        print(
            f"n_runs: {args.eval_n_runs} mean: {stats['mean']} "
            f"median: {stats['median']} stdev: {stats['stdev']}"
        )
        return
    experiments.train_agent_async(
        agent=agent,
        outdir=outdir,
        processes=args.processes,
        make_env=make_env,
        steps=args.steps,
        eval_interval=args.eval_interval,
        eval_n_steps=None,
        eval_n_episodes=args.eval_n_runs,
        max_episode_len=args.max_episode_len,
    )


if __name__ == "__main__":
    main()
