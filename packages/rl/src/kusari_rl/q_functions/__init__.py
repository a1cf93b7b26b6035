"""Q-functions (``chainerrl.q_functions``)."""

from kusari_rl.q_functions.dueling_dqn import (
    DistributionalDuelingDQN,
    DuelingDQN,
    FCDuelingQFunction,
)
from kusari_rl.q_functions.state_action_q_functions import (
    FCBNLateActionSAQFunction,
    FCBNSAQFunction,
    FCLateActionSAQFunction,
    FCSAQFunction,
    SingleModelStateActionQFunction,
)
from kusari_rl.q_functions.state_q_functions import (
    DistributionalFCStateQFunctionWithDiscreteAction,
    DistributionalSingleModelStateQFunctionWithDiscreteAction,
    FCQuadraticStateQFunction,
    FCStateQFunctionWithDiscreteAction,
    SingleModelStateQFunctionWithDiscreteAction,
)
