import subprocess
import sys


def test_argument_is_reachable_from_the_package():
    # Chainer v7 code writes ``from chainer import utils`` and then uses
    # ``utils.argument.parse_kwargs``; a fresh interpreter shows that
    # importing kusari.utils alone makes the submodule an attribute.
    code = (
        "from kusari import utils\n"
        "(v,) = utils.argument.parse_kwargs({'a': 1}, ('a', 0))\n"
        "assert v == 1, v\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
