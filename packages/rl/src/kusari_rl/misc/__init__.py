"""Utilities shared by agents and experiments (``chainerrl.misc``)."""

from kusari_rl.misc.batch_states import batch_states
from kusari_rl.misc.collections import RandomAccessQueue
from kusari_rl.misc.copy_param import copy_grad, copy_param, soft_copy_param
from kusari_rl.misc.env_spaces import check_agent_env, check_env_spaces
from kusari_rl.misc.random_seed import (
    get_random_state,
    sample_n_k,
    set_random_seed,
    set_random_state,
)
from kusari_rl.misc.sum_tree import SumTree

__all__ = [
    "RandomAccessQueue",
    "SumTree",
    "batch_states",
    "check_agent_env",
    "check_env_spaces",
    "copy_grad",
    "copy_param",
    "get_random_state",
    "sample_n_k",
    "set_random_seed",
    "set_random_state",
    "soft_copy_param",
]
