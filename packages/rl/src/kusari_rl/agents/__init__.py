"""Agents (``chainerrl.agents``).

Other modules add their agents here with one import line each.
"""

from kusari_rl.agents.a2c import A2C
from kusari_rl.agents.a3c import A3C
from kusari_rl.agents.categorical_double_dqn import CategoricalDoubleDQN
from kusari_rl.agents.categorical_dqn import CategoricalDQN
from kusari_rl.agents.ddpg import DDPG
from kusari_rl.agents.double_dqn import DoubleDQN
from kusari_rl.agents.double_pal import DoublePAL
from kusari_rl.agents.dqn import DQN
from kusari_rl.agents.iqn import IQN
from kusari_rl.agents.pal import PAL
from kusari_rl.agents.ppo import PPO
from kusari_rl.agents.reinforce import REINFORCE
from kusari_rl.agents.soft_actor_critic import SoftActorCritic
from kusari_rl.agents.td3 import TD3
from kusari_rl.agents.trpo import TRPO
