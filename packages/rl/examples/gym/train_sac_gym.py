"""Soft Actor-Critic on a continuous-control Gymnasium env (Pendulum by default).

    python train_sac_gym.py                       # Pendulum-v1, 20k steps
    python train_sac_gym.py --steps 200 --replay-start-size 100   # smoke test
    python train_sac_gym.py --demo --load results/<run>/best      # watch scores

The command line follows ChainerRL's examples (``--env --steps --seed --gpu
--outdir --demo --load``). Actions are normalised to [-1, 1] because the
squashed Gaussian policy samples there.
"""

from __future__ import annotations

import argparse
import logging
import sys

import gymnasium as gym

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_rl import experiments, misc, replay_buffers, wrappers
from kusari_rl.agents import SoftActorCritic
from kusari_rl.policies import SquashedDiagonalGaussianHead
from kusari_rl.q_functions import FCSAQFunction


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", default="Pendulum-v1", help="Gymnasium env id")
    parser.add_argument("--outdir", default="results", help="where runs are written")
    parser.add_argument("--seed", type=int, default=0, help="random seed [0, 2**32)")
    parser.add_argument(
        "--gpu",
        "--device",
        type=int,
        default=-1,
        dest="gpu",
        help="GPU id; negative for CPU",
    )
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--eval-n-runs", type=int, default=10)
    parser.add_argument("--eval-interval", type=int, default=1000)
    parser.add_argument("--replay-start-size", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--n-hidden-channels", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--demo", action="store_true", help="evaluate only")
    parser.add_argument("--load", default="", help="directory of a saved agent")
    parser.add_argument("--log-level", type=int, default=logging.INFO)
    return parser.parse_args(argv)


def make_env(env_id: str, seed: int) -> gym.Env:
    env = wrappers.CastObservationToFloat32(gym.make(env_id))
    env = wrappers.NormalizeActionSpace(env)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


def make_agent(args: argparse.Namespace, env: gym.Env) -> SoftActorCritic:
    obs_size = env.observation_space.shape[0]
    action_size = env.action_space.shape[0]
    hidden = args.n_hidden_channels
    policy = kusari.Sequential(
        L.Linear(obs_size, hidden),
        F.relu,
        L.Linear(hidden, hidden),
        F.relu,
        L.Linear(hidden, 2 * action_size),
        SquashedDiagonalGaussianHead(),
    )
    q_func1 = FCSAQFunction(obs_size, action_size, hidden, n_hidden_layers=2)
    q_func2 = FCSAQFunction(obs_size, action_size, hidden, n_hidden_layers=2)

    def adam(link: kusari.Link) -> kusari.Optimizer:
        opt = kusari.optimizers.Adam(alpha=args.lr)
        opt.setup(link)
        return opt

    return SoftActorCritic(
        policy,
        q_func1,
        q_func2,
        adam(policy),
        adam(q_func1),
        adam(q_func2),
        replay_buffers.ReplayBuffer(10**6),
        gamma=args.gamma,
        gpu=args.gpu,
        replay_start_size=args.replay_start_size,
        minibatch_size=args.batch_size,
        burnin_action_func=env.action_space.sample,
        entropy_target=-float(action_size),
        temperature_optimizer=kusari.optimizers.Adam(alpha=args.lr),
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level)
    misc.set_random_seed(args.seed, gpus=(args.gpu,))
    args.outdir = experiments.prepare_output_dir(args, args.outdir, argv=argv)
    env = make_env(args.env, args.seed)
    eval_env = make_env(args.env, 2**31 - 1 - args.seed)
    agent = make_agent(args, env)
    if args.load:
        agent.load(args.load)
    if args.demo:
        stats = experiments.eval_performance(
            env=eval_env, agent=agent, n_steps=None, n_episodes=args.eval_n_runs
        )
        print(
            f"n_runs: {args.eval_n_runs} mean: {stats['mean']} "
            f"median: {stats['median']} stdev: {stats['stdev']}"
        )
        return
    experiments.train_agent_with_evaluation(
        agent=agent,
        env=env,
        eval_env=eval_env,
        steps=args.steps,
        eval_n_steps=None,
        eval_n_episodes=args.eval_n_runs,
        eval_interval=args.eval_interval,
        outdir=args.outdir,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
