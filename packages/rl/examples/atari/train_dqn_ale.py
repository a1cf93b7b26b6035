"""Train DQN-family agents on Atari (ChainerRL's ``train_dqn_ale.py``).

Needs ale-py (``pip install 'kusari-rl[atari]'``); without it the script
prints a message and exits.

    python train_dqn_ale.py --env ALE/Pong-v5 --steps 10000000
    python train_dqn_ale.py --env ALE/Pong-v5 --agent DoubleDQN --arch dueling
    python train_dqn_ale.py --env ALE/Pong-v5 --demo --load results/.../best
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import make_env, phi, require_ale

import kusari
import kusari.links as L
from kusari_rl import (
    action_value,
    agents,
    experiments,
    explorers,
    links,
    misc,
    q_functions,
    replay_buffers,
)


def parse_arch(arch: str, n_actions: int) -> kusari.Link:
    if arch == "nature":
        return links.Sequence(
            links.NatureDQNHead(),
            L.Linear(512, n_actions),
            action_value.DiscreteActionValue,
        )
    if arch == "nips":
        return links.Sequence(
            links.NIPSDQNHead(),
            L.Linear(256, n_actions),
            action_value.DiscreteActionValue,
        )
    if arch == "dueling":
        return q_functions.DuelingDQN(n_actions)
    raise ValueError(f"unknown --arch {arch!r}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", type=str, default="ALE/Breakout-v5")
    parser.add_argument("--outdir", type=str, default="results")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gpu", type=int, default=-1, help="GPU id (-1: CPU)")
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--load", type=str, default=None)
    parser.add_argument("--final-exploration-frames", type=int, default=10**6)
    parser.add_argument("--final-epsilon", type=float, default=0.01)
    parser.add_argument("--eval-epsilon", type=float, default=0.001)
    parser.add_argument("--noisy-net-sigma", type=float, default=None)
    parser.add_argument(
        "--arch", type=str, default="nature", choices=["nature", "nips", "dueling"]
    )
    parser.add_argument("--steps", type=int, default=5 * 10**7)
    parser.add_argument("--max-frames", type=int, default=30 * 60 * 60)
    parser.add_argument("--replay-start-size", type=int, default=5 * 10**4)
    parser.add_argument("--replay-capacity", type=int, default=10**6)
    parser.add_argument("--target-update-interval", type=int, default=3 * 10**4)
    parser.add_argument("--eval-interval", type=int, default=10**5)
    parser.add_argument("--eval-n-steps", type=int, default=125000)
    parser.add_argument("--update-interval", type=int, default=4)
    parser.add_argument("--no-clip-delta", dest="clip_delta", action="store_false")
    parser.add_argument(
        "--agent",
        type=str,
        default="DQN",
        choices=["DQN", "DoubleDQN", "PAL", "DoublePAL"],
    )
    parser.add_argument("--lr", type=float, default=2.5e-4)
    parser.add_argument("--prioritized", action="store_true")
    parser.add_argument("--logger-level", type=int, default=logging.INFO)
    args = parser.parse_args(argv)
    require_ale()

    logging.basicConfig(level=args.logger_level)
    misc.set_random_seed(args.seed, gpus=(args.gpu,))
    outdir = experiments.prepare_output_dir(args, args.outdir, argv=argv)
    env = make_env(args.env, args.seed, args.max_frames, test=False)
    eval_env = make_env(
        args.env, args.seed, args.max_frames, test=True, eval_epsilon=args.eval_epsilon
    )
    n_actions = env.action_space.n  # type: ignore[attr-defined]
    q_func = parse_arch(args.arch, n_actions)
    if args.noisy_net_sigma is not None:
        links.to_factorized_noisy(q_func, sigma_scale=args.noisy_net_sigma)
        explorer: explorers.Explorer = explorers.Greedy()
    else:
        explorer = explorers.LinearDecayEpsilonGreedy(
            1.0,
            args.final_epsilon,
            args.final_exploration_frames // 4,
            env.action_space.sample,
        )
    opt = kusari.optimizers.RMSpropGraves(
        lr=args.lr, alpha=0.95, momentum=0.0, eps=1e-2
    )
    opt.setup(q_func)
    if args.prioritized:
        betasteps = args.steps / args.update_interval
        rbuf: replay_buffers.ReplayBuffer = replay_buffers.PrioritizedReplayBuffer(
            args.replay_capacity, alpha=0.6, beta0=0.4, betasteps=betasteps
        )
    else:
        rbuf = replay_buffers.ReplayBuffer(args.replay_capacity)
    agent = getattr(agents, args.agent)(
        q_func,
        opt,
        rbuf,
        gpu=args.gpu,
        gamma=0.99,
        explorer=explorer,
        replay_start_size=args.replay_start_size,
        target_update_interval=args.target_update_interval,
        clip_delta=args.clip_delta,
        update_interval=args.update_interval,
        batch_accumulator="sum",
        phi=phi,
    )
    if args.load:
        agent.load(args.load)
    if args.demo:
        stats = experiments.eval_performance(
            env=eval_env, agent=agent, n_steps=args.eval_n_steps, n_episodes=None
        )
        print(
            f"n_steps: {args.eval_n_steps} mean: {stats['mean']} "
            f"median: {stats['median']} stdev: {stats['stdev']}"
        )
        return
    experiments.train_agent_with_evaluation(
        agent=agent,
        env=env,
        steps=args.steps,
        eval_n_steps=args.eval_n_steps,
        eval_n_episodes=None,
        eval_interval=args.eval_interval,
        outdir=outdir,
        eval_env=eval_env,
        save_best_so_far_agent=False,
    )


if __name__ == "__main__":
    main()
