"""Trainer extensions: logging, evaluation, snapshots, schedules, plots."""

from kusari.training.extensions import snapshot_writers
from kusari.training.extensions._snapshot import snapshot, snapshot_object
from kusari.training.extensions.computational_graph import DumpGraph, dump_graph
from kusari.training.extensions.evaluator import Evaluator
from kusari.training.extensions.exponential_shift import ExponentialShift
from kusari.training.extensions.fail_on_nonnumber import FailOnNonNumber
from kusari.training.extensions.inverse_shift import InverseShift
from kusari.training.extensions.linear_shift import LinearShift
from kusari.training.extensions.log_report import LogReport
from kusari.training.extensions.micro_average import MicroAverage
from kusari.training.extensions.multistep_shift import MultistepShift
from kusari.training.extensions.parameter_statistics import ParameterStatistics
from kusari.training.extensions.plot_report import PlotReport
from kusari.training.extensions.polynomial_shift import PolynomialShift
from kusari.training.extensions.print_report import PrintReport
from kusari.training.extensions.progress_bar import ProgressBar
from kusari.training.extensions.step_shift import StepShift
from kusari.training.extensions.unchain_variables import unchain_variables
from kusari.training.extensions.value_observation import observe_lr, observe_value
from kusari.training.extensions.variable_statistics_plot import VariableStatisticsPlot
from kusari.training.extensions.warmup_shift import WarmupShift

__all__ = [
    "DumpGraph",
    "Evaluator",
    "ExponentialShift",
    "FailOnNonNumber",
    "InverseShift",
    "LinearShift",
    "LogReport",
    "MicroAverage",
    "MultistepShift",
    "ParameterStatistics",
    "PlotReport",
    "PolynomialShift",
    "PrintReport",
    "ProgressBar",
    "StepShift",
    "VariableStatisticsPlot",
    "WarmupShift",
    "dump_graph",
    "observe_lr",
    "observe_value",
    "snapshot",
    "snapshot_object",
    "snapshot_writers",
    "unchain_variables",
]
