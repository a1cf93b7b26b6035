"""Every check script in one MPI launch (a launch costs about a second)."""

import check_communicators
import check_grad_buffer
import check_grad_destinations
import check_model_parallel
import check_training

check_communicators.main()
check_grad_buffer.main()
check_grad_destinations.main()
check_training.main()
check_model_parallel.main()
