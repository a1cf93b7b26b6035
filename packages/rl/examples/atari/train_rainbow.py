"""Train Rainbow on Atari (ChainerRL's ``train_rainbow.py``).

Rainbow = CategoricalDoubleDQN + a noisy distributional dueling network +
3-step returns + prioritized replay. Needs ale-py
(``pip install 'kusari-rl[atari]'``); without it the script prints a message
and exits.

    python train_rainbow.py --env ALE/Pong-v5 --steps 10000000 --gpu 0

Data-efficient Rainbow (van Hasselt et al., 2019: an update every step,
20-step returns, learning from step 1600) for short runs on a CPU:

    python train_rainbow.py --env ALE/Pong-v5 --steps 100000 \
        --replay-start-size 1600 --update-interval 1 \
        --target-update-interval 2000 --lr 1e-4 --n-step 20 \
        --noisy-net-sigma 0.1 --eval-interval 10000 --eval-n-episodes 1
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import make_env, phi, require_ale

import kusari
from kusari_rl import (
    agents,
    experiments,
    explorers,
    links,
    misc,
    q_functions,
    replay_buffers,
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", type=str, default="ALE/Breakout-v5")
    parser.add_argument("--outdir", type=str, default="results")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gpu", type=int, default=-1, help="GPU id (-1: CPU)")
    parser.add_argument("--demo", action="store_true")
    parser.add_argument("--load", type=str, default=None)
    parser.add_argument("--eval-epsilon", type=float, default=0.0)
    parser.add_argument("--noisy-net-sigma", type=float, default=0.5)
    parser.add_argument("--steps", type=int, default=5 * 10**7)
    parser.add_argument("--max-frames", type=int, default=30 * 60 * 60)
    parser.add_argument("--replay-start-size", type=int, default=2 * 10**4)
    parser.add_argument("--replay-capacity", type=int, default=10**6)
    parser.add_argument("--target-update-interval", type=int, default=32000)
    parser.add_argument("--eval-interval", type=int, default=250000)
    parser.add_argument("--eval-n-steps", type=int, default=125000)
    parser.add_argument(
        "--eval-n-episodes",
        type=int,
        default=None,
        help="evaluate on this many whole episodes instead of --eval-n-steps",
    )
    parser.add_argument("--n-step", type=int, default=3, help="n-step return length")
    parser.add_argument("--update-interval", type=int, default=4)
    parser.add_argument("--n-atoms", type=int, default=51)
    parser.add_argument("--v-max", type=float, default=10.0)
    parser.add_argument("--lr", type=float, default=6.25e-5)
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
    q_func = q_functions.DistributionalDuelingDQN(
        n_actions, args.n_atoms, -args.v_max, args.v_max
    )
    # Noisy nets replace epsilon-greedy exploration.
    links.to_factorized_noisy(q_func, sigma_scale=args.noisy_net_sigma)
    opt = kusari.optimizers.Adam(alpha=args.lr, eps=1.5e-4)
    opt.setup(q_func)
    betasteps = args.steps / args.update_interval
    rbuf = replay_buffers.PrioritizedReplayBuffer(
        args.replay_capacity,
        alpha=0.5,
        beta0=0.4,
        betasteps=betasteps,
        num_steps=args.n_step,
        normalize_by_max="memory",
    )
    agent = agents.CategoricalDoubleDQN(
        q_func,
        opt,
        rbuf,
        gpu=args.gpu,
        gamma=0.99,
        explorer=explorers.Greedy(),
        minibatch_size=32,
        replay_start_size=args.replay_start_size,
        target_update_interval=args.target_update_interval,
        update_interval=args.update_interval,
        batch_accumulator="mean",
        phi=phi,
    )
    if args.load:
        agent.load(args.load)
    # Exactly one of the two evaluation budgets is used.
    eval_n_steps = None if args.eval_n_episodes else args.eval_n_steps
    if args.demo:
        stats = experiments.eval_performance(
            env=eval_env,
            agent=agent,
            n_steps=eval_n_steps,
            n_episodes=args.eval_n_episodes,
        )
        print(
            f"n_steps: {eval_n_steps} mean: {stats['mean']} "
            f"median: {stats['median']} stdev: {stats['stdev']}"
        )
        return
    experiments.train_agent_with_evaluation(
        agent=agent,
        env=env,
        steps=args.steps,
        eval_n_steps=eval_n_steps,
        eval_n_episodes=args.eval_n_episodes,
        eval_interval=args.eval_interval,
        outdir=outdir,
        eval_env=eval_env,
        save_best_so_far_agent=False,
    )


if __name__ == "__main__":
    main()
