"""Exit while a double-buffered Allreduce is still in flight: must end cleanly."""

import numpy as np

import kusari
import kusari.links as L
import kusari_mn

comm = kusari_mn.create_communicator("flat")
# Megabytes of gradients, so the reduction is still in flight at exit.
model = L.Classifier(L.Linear(1000, 2000))
optimizer = kusari_mn.create_multi_node_optimizer(
    kusari.optimizers.SGD(lr=0.1), comm, double_buffering=True
)
optimizer.setup(model)
x = np.random.RandomState(comm.rank).rand(8, 1000).astype(np.float32)
t = np.zeros(8, np.int32)
for _ in range(3):
    optimizer.update(model, x, t)  # the last one leaves its reduction pending
print(f"RANK {comm.rank} LEAVING", flush=True)
