"""Links for multi-process training."""

from kusari_mn.links.batch_normalization import MultiNodeBatchNormalization
from kusari_mn.links.create_mnbn_model import create_mnbn_model
from kusari_mn.links.multi_node_chain_list import MultiNodeChainList
from kusari_mn.links.n_step_rnn import create_multi_node_n_step_rnn

__all__ = [
    "MultiNodeBatchNormalization",
    "MultiNodeChainList",
    "create_mnbn_model",
    "create_multi_node_n_step_rnn",
]
