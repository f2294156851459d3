"""Errors raised for bad input, and reading input text files (whose failures are such errors).

Every error a person can cause by typing something wrong is a subclass of
``ValueError`` with a message that names the problem, so the CLI can print one
line and exit with code 2.
"""

import os
import re
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType


class BgnetError(ValueError):
    """Base class of bgnet's input errors."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a scheduler's stop) while a command runs under :func:`signals_stop_cleanly`: the
    command stops as on Ctrl-C (its processes stopped, what it has kept)."""


def _in_numba(frame: FrameType) -> bool:
    """Whether ``frame`` runs numba's own Python code: a compiled function calls back into it (to unpickle
    the dtype of an array it returns, for one), and an exception raised there comes out of the compiled
    function as a ``SystemError``, so the stop would be lost in a traceback."""
    numba = sys.modules.get("numba")
    where = getattr(numba, "__file__", None)
    return where is not None and frame.f_code.co_filename.startswith(os.path.dirname(where) + os.sep)


_waiting: list[FrameType] = []  # the frames where a stop waits to be raised (:func:`_raise_next`)


def _untrace() -> None:
    """Take back :func:`_raise_next`'s trace (it fired, or the block ends with a stop still waiting)."""
    for f in _waiting:
        f.f_trace = None
        f.f_trace_opcodes = False
    _waiting.clear()
    sys.settrace(None)


def _raise_next(frames: list[FrameType], error: type[KeyboardInterrupt]) -> None:
    """Raise ``error`` at the next instruction that one of ``frames`` (the innermost first, then its
    callers) runs, by a trace function that takes itself back when it fires."""

    def fire(_frame: FrameType, event: str, _arg: object):
        if event != "opcode":  # (every instruction of these frames comes as one, before its line or return)
            return fire
        _untrace()
        raise error

    _waiting.extend(frames)
    for f in frames:
        f.f_trace = fire
        f.f_trace_opcodes = True  # at the instruction after the compiled call, inside its try
    sys.settrace(lambda *_: None)  # tracing on for the frames above; none for the frames they call


def _stop(error: type[KeyboardInterrupt], frame: FrameType | None) -> None:
    """Raise ``error`` where the signal came, or, inside numba's own Python code, at the next instruction
    of the first frame outside it (:func:`_in_numba`).  Under a debugger or a coverage tool (a trace
    function set already), raise it where it came: their trace comes first."""
    if _waiting:  # a stop already waits for its instruction
        return
    outside = frame
    while outside is not None and _in_numba(outside):
        outside = outside.f_back
    if outside is frame or outside is None or sys.gettrace() is not None:
        raise error
    callers = []
    while outside is not None:
        callers.append(outside)
        outside = outside.f_back
    _raise_next(callers, error)


def _interrupted(_signum: int, frame: FrameType | None) -> None:
    _stop(KeyboardInterrupt, frame)


def _terminated(_signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM does not cut the clean-up short
    _stop(Terminated, frame)


@contextmanager
def signals_stop_cleanly() -> Iterator[None]:
    """Within the block Ctrl-C (SIGINT) raises ``KeyboardInterrupt`` and SIGTERM :class:`Terminated`, each
    where Python code runs, never inside numba's callbacks from compiled code (:func:`_in_numba`).  In the
    main thread (elsewhere nothing changes); a SIGINT that was ignored (a background job's) stays ignored,
    and the handlers before are put back after."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread has handlers
        yield
        return
    before_term = signal.signal(signal.SIGTERM, _terminated)
    before_int = signal.getsignal(signal.SIGINT)
    if before_int is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)
    try:
        yield
    finally:
        if _waiting:
            _untrace()
        signal.signal(signal.SIGTERM, before_term if before_term is not None else signal.SIG_DFL)
        if before_int is signal.default_int_handler:
            signal.signal(signal.SIGINT, before_int)


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
