"""Start-up: the commands that need no network do not import torch (it takes seconds to load)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bgnet.formats import position_id
from bgnet.position import Position

RACE = position_id(Position.from_points({1: 2, 2: 1}, {1: 1, 3: 1}).board)

# Run bgnet.cli.main with the arguments in a fresh interpreter, then report whether torch was loaded.
_PROBE = """
import sys
import bgnet.cli
try:
    code = bgnet.cli.main(sys.argv[1:])
except SystemExit as e:  # --help and --version exit through argparse
    code = e.code
print("TORCH" if "torch" in sys.modules else "NO TORCH", code, file=sys.stderr)
"""


def _modules_after(argv: list[str]) -> tuple[str, str]:
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=120)
    return proc.stdout, proc.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["cube", "--probs", "0.70,0.20,0.01,0.05,0.001", "--length", "7", "--score", "2,4"],
        ["analyze", "--help"],
        ["bearoff", "show", RACE],
        ["moves", "4HPwATDgc/ABMA", "31"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_commands_without_a_network_do_not_import_torch(argv):
    out, last = _modules_after(argv)
    assert last.endswith(" 0"), f"the command failed: {last}"
    assert out  # it did its job
    assert last.startswith("NO TORCH")


@pytest.mark.slow
def test_a_command_that_ranks_does_import_torch():
    """The probe can fail: ranking plays loads the network."""
    _, last = _modules_after(["moves", "4HPwATDgc/ABMA", "31", "--rank"])
    assert last == "TORCH 0"


def test_version_is_the_installed_packages(capsys):
    from importlib.metadata import version

    import bgnet
    from bgnet.cli import main

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"bgnet {version('bgnet')}" == f"bgnet {bgnet.__version__}"
