import gymnasium as gym
import numpy as np
import pytest

from kusari_rl.envs import ABC
from kusari_rl.wrappers import (
    CastObservation,
    CastObservationToFloat32,
    NormalizeActionSpace,
    RandomizeAction,
    ScaleReward,
    atari_wrappers,
)


class _Frames(gym.Env):
    """Emits frames filled with the step count."""

    observation_space = gym.spaces.Box(0, 255, shape=(3, 3), dtype=np.uint8)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.full((3, 3), self.t, np.uint8), {}

    def step(self, action):
        self.t += 1
        return np.full((3, 3), self.t, np.uint8), 1.0, False, self.t >= 5, {}


def test_frame_stack_lazy_frames():
    env = atari_wrappers.FrameStack(_Frames(), 4)
    assert env.observation_space.shape == (4, 3, 3)
    obs, _ = env.reset(seed=0)
    np.testing.assert_array_equal(np.asarray(obs)[:, 0, 0], [0, 0, 0, 0])
    for _ in range(2):
        obs, *_ = env.step(0)
    arr = np.asarray(obs)
    assert arr.shape == (4, 3, 3) and obs.shape == (4, 3, 3)
    np.testing.assert_array_equal(arr[:, 0, 0], [0, 0, 1, 2])
    np.testing.assert_array_equal(
        np.asarray(obs, dtype=np.float32)[:, 1, 1], [0, 0, 1, 2]
    )
    hwc = atari_wrappers.FrameStack(_Frames(), 2, channel_order="hwc")
    assert np.asarray(hwc.reset()[0]).shape == (3, 3, 2) == hwc.observation_space.shape


def test_cast_and_scale_reward():
    env = ScaleReward(CastObservationToFloat32(CastObservation(ABC(), np.float64)), 0.5)
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32
    for a in range(3):
        _, r, terminated, _, _ = env.step(a)
    assert terminated and r == 0.5 and env.original_reward == 1.0


def test_normalize_action_space():
    env = NormalizeActionSpace(gym.make("Pendulum-v1"))
    assert env.action_space.low.tolist() == [
        -1.0
    ] and env.action_space.high.tolist() == [1.0]
    np.testing.assert_allclose(env.action(np.array([1.0])), [2.0])
    np.testing.assert_allclose(env.action(np.array([-0.5])), [-1.0])
    with pytest.raises(ValueError, match="bounded Box"):
        NormalizeActionSpace(ABC())


def test_randomize_action():
    env = RandomizeAction(ABC(), 0.5)
    env.reset(seed=0)
    picks = np.array([env.action(0) for _ in range(4000)])
    # Half random over 3 actions: P(not 0) = 0.5 * 2/3.
    assert np.mean(picks != 0) == pytest.approx(1 / 3, abs=0.03)
    with pytest.raises(ValueError, match="Discrete"):
        RandomizeAction(gym.make("Pendulum-v1"), 0.1)


def test_deepmind_wrappers_on_ale():
    pytest.importorskip("ale_py", reason="ale-py (the atari extra) is not installed")
    pytest.importorskip("cv2", reason="OpenCV (the atari extra) is not installed")
    env = atari_wrappers.wrap_deepmind(atari_wrappers.make_atari("ALE/Pong-v5"))
    obs, _ = env.reset(seed=0)
    assert np.asarray(obs).shape == (4, 84, 84) and np.asarray(obs).dtype == np.uint8
    _, r, *_ = env.step(0)
    assert r in (-1.0, 0.0, 1.0)
    env.close()
