"""scatter_dataset misuse: every rank must report the error, none may hang.

Case ``small``: the dataset has fewer examples than ranks. Case
``mismatch``: the last rank passes another seed than the others. After
both, a correct call must still work (the communicator is not left in a
broken state).
"""

import kusari_mn

kusari_mn.global_except_hook.remove_hook()  # report, don't abort
comm = kusari_mn.create_communicator("naive")
for case in ("small", "mismatch"):
    data = list(range(comm.size - 1)) if case == "small" else list(range(20))
    seed = 1 if case == "mismatch" and comm.rank == comm.size - 1 else 0
    try:
        kusari_mn.scatter_dataset(
            data if comm.rank == 0 else None, comm, shuffle=True, seed=seed
        )
    except (ValueError, kusari_mn.DataSizeError) as e:
        print(f"{case} RANK {comm.rank} ERROR {type(e).__name__}: {e}", flush=True)
    else:
        print(f"{case} RANK {comm.rank} NO ERROR", flush=True)
sub = kusari_mn.scatter_dataset(list(range(9)) if comm.rank == 0 else None, comm)
print(f"after RANK {comm.rank} got {len(sub)}", flush=True)
