"""The DQN options of the benchmarks' kusari-rl factory reach the agent."""

from __future__ import annotations

import numpy as np
import pytest


def test_torch_init_gives_pytorch_default_ranges(bench):
    trainer = bench.make_dqn(0, torch_init=True)
    plain = bench.make_dqn(0)
    try:
        for link in (trainer.agent.model, plain.agent.model):
            assert len(list(link.params())) == 6
        for name, p in trainer.agent.model.namedparams():
            fan_in = (
                p.shape[1]
                if p.ndim == 2
                else dict(trainer.agent.model.namedparams())[name[:-1] + "W"].shape[1]
            )
            bound = 1.0 / np.sqrt(fan_in)
            assert np.abs(p.array).max() <= bound, name
            # Uniform on +-bound, biases too (not Chainer's zeros).
            assert np.all(p.array != 0), name
            if p.size >= 256:
                assert np.abs(p.array).max() > 0.9 * bound, name
        # Chainer's default (LeCun normal, zero biases) is kept without it.
        hidden = plain.agent.model.model.hidden_layers[1]
        assert np.all(hidden.b.array == 0)
        assert hidden.W.array.std() == pytest.approx(1 / np.sqrt(256), rel=0.05)
        torch_hidden = trainer.agent.model.model.hidden_layers[1]
        # Uniform on +-1/sqrt(256): standard deviation 1/sqrt(3 * 256).
        assert torch_hidden.W.array.std() == pytest.approx(
            1 / np.sqrt(3 * 256), rel=0.05
        )
        # The target network starts as a copy of the initialised model.
        for p, q in zip(
            trainer.agent.model.params(), trainer.agent.target_model.params()
        ):
            np.testing.assert_array_equal(p.array, q.array)
    finally:
        trainer.close()
        plain.close()


def test_dueling_builds_value_and_advantage_heads_on_the_trunk(bench):
    trainer = bench.make_dqn(0, dueling=True)
    try:
        model = trainer.agent.model
        assert type(model).__name__ == "FCDuelingQFunction"
        shapes = sorted(p.shape for name, p in model.namedparams() if name[-1] == "W")
        assert shapes == sorted([(256, 4), (256, 256), (2, 256), (1, 256)])
        trainer.train(16)
        obs, _ = trainer.env.reset(seed=1)
        assert trainer.greedy_action(obs) in (0, 1)
    finally:
        trainer.close()
