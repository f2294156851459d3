"""Errors raised for bad input.

Every error a person can cause by typing something wrong is a subclass of
``ValueError`` with a message that names the problem, so the CLI can print one
line and exit with code 2.
"""


class BgnetError(ValueError):
    """Base class of bgnet's input errors."""


class InvalidPositionError(BgnetError):
    """A position (array, Position ID, XGID) that is malformed or impossible."""


class InvalidDiceError(BgnetError):
    """Dice that are not two numbers from 1 to 6."""


class InvalidMatchIdError(BgnetError):
    """A malformed GNUBG Match ID or match field of an XGID."""


class IllegalMoveError(BgnetError):
    """A play that is not legal for the position and dice."""
