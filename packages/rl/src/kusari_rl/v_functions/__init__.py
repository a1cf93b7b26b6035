"""State-value functions (``chainerrl.v_functions``)."""

from kusari_rl.v_functions.state_value_functions import (
    FCVFunction,
    SingleModelStateValueFunction,
)

__all__ = ["FCVFunction", "SingleModelStateValueFunction"]
