"""Errors raised for bad input, and reading input text files (whose failures are such errors).

Every error a person can cause by typing something wrong is a subclass of
``ValueError`` with a message that names the problem, so the CLI can print one
line and exit with code 2.
"""

import re
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class BgnetError(ValueError):
    """Base class of bgnet's input errors."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a scheduler's stop) while a command runs under :func:`sigterm_stops_cleanly`: the
    command stops as on Ctrl-C (its processes stopped, what it has kept)."""


def _terminated(_signum: int, _frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM does not cut the clean-up short
    raise Terminated


@contextmanager
def sigterm_stops_cleanly() -> Iterator[None]:
    """Within the block SIGTERM raises :class:`Terminated` (in the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread has handlers
        yield
        return
    before = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before if before is not None else signal.SIG_DFL)


def read_text(path: str | Path, error: type[BgnetError] | None = None) -> str:
    """The text of a UTF-8 file (``-``: standard input).

    A missing or unreadable file, or one that is not UTF-8 text (a binary
    file), raises ``error`` (default :class:`BgnetError`) with one line that
    names the file and the problem.
    """
    kind = error or BgnetError
    name = "standard input" if str(path) == "-" else str(path)
    try:
        if str(path) == "-":
            return sys.stdin.buffer.read().decode("utf-8")
        return Path(path).read_bytes().decode("utf-8")
    except OSError as e:
        raise kind(f"cannot read {name}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        byte = f"byte 0x{e.object[e.start]:02x} at offset {e.start}"
        raise kind(f"cannot read {name}: not a UTF-8 text file ({byte})") from None


class InvalidPositionError(BgnetError):
    """A position (array, Position ID, XGID) that is malformed or impossible."""


class InvalidDiceError(BgnetError):
    """Dice that are not two numbers from 1 to 6."""


class InvalidMatchIdError(BgnetError):
    """A malformed GNUBG Match ID or match field of an XGID."""


class IllegalMoveError(BgnetError):
    """A play that is not legal for the position and dice."""


class DeviceError(BgnetError):
    """Not a device name (:data:`DEVICES`), or a GPU this machine lacks
    (:func:`bgnet.network.pick_device`)."""


DEVICES = "auto, cpu, cuda or cuda:N"
"""The device names every command, player spec and config takes (:func:`bgnet.network.pick_device`)."""


def is_device_name(name: str) -> bool:
    """Whether ``name`` is one of :data:`DEVICES` (not whether this machine has it; no torch needed)."""
    return name in {"auto", "cpu", "cuda"} or re.fullmatch(r"cuda:(0|[1-9][0-9]{0,3})", name) is not None
