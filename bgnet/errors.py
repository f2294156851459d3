"""Errors raised for bad input, and reading input text files (whose failures are such errors).

Every error a person can cause by typing something wrong is a subclass of
``ValueError`` with a message that names the problem, so the CLI can print one
line and exit with code 2.
"""

import sys
from pathlib import Path


class BgnetError(ValueError):
    """Base class of bgnet's input errors."""


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
