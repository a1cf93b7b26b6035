"""Hooks that observe every function call (``with hook:`` or ``add_hook``).

Example:
    >>> import numpy as np
    >>> import kusari.functions as F
    >>> from kusari import function_hooks
    >>> with function_hooks.TimerHook() as timer:
    ...     _ = F.relu(np.ones(3, np.float32))
    >>> list(timer.summary())
    ['ReLU']
"""

from kusari.function_hooks.cuda_profile import CUDAProfileHook
from kusari.function_hooks.cupy_memory_profile import CupyMemoryProfileHook
from kusari.function_hooks.debug_print import PrintHook
from kusari.function_hooks.timer import TimerHook

__all__ = ["CUDAProfileHook", "CupyMemoryProfileHook", "PrintHook", "TimerHook"]
