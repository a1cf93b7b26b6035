"""Exit while a double-buffered Allreduce is still in flight: must end cleanly.

The optimizer lives in a function that returns with its last reduction in
flight, as in any training script whose ``main()`` builds the trainer, so
the optimizer is collected before the interpreter exits. The last rank
enters that reduction a second late, so on the other ranks it is certainly
still running when they reach ``MPI_Finalize``. The gradients (40 MB) are
larger than glibc's largest mmap threshold, so a buffer freed while MPI
still writes into it is unmapped memory: freeing it early is a segfault,
not silent corruption. Prints ``RANK <r> LEAVING``.
"""

import gc
import time

import numpy as np

import kusari
import kusari.links as L
import kusari_mn


def train():
    comm = kusari_mn.create_communicator("flat")
    model = L.Classifier(L.Linear(1000, 10000))
    optimizer = kusari_mn.create_multi_node_optimizer(
        kusari.optimizers.SGD(lr=0.1), comm, double_buffering=True
    )
    optimizer.setup(model)
    x = np.random.RandomState(comm.rank).rand(8, 1000).astype(np.float32)
    t = np.zeros(8, np.int32)
    for i in range(3):
        if i == 2 and comm.rank == comm.size - 1:
            time.sleep(1.0)
        optimizer.update(model, x, t)  # the last one leaves its reduction pending
    return comm.rank


rank = train()
gc.collect()  # the optimizer and its buffers are unreachable now
print(f"RANK {rank} LEAVING", flush=True)
