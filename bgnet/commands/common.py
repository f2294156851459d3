"""What several commands share: input lines, dice, the terminal of ``play``.  No torch here (start-up).

Networks are loaded by :meth:`bgnet.evaluator.NetEvaluator.from_checkpoint`
(an evaluator) or :meth:`bgnet.players.NetPlayer.from_checkpoint` (bgnet's
player), nowhere else.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO

from bgnet.dice import Dice
from bgnet.errors import read_text
from bgnet.formats import Xgid


def read_lines(path: str) -> list[str]:
    """The lines of a text file, or of standard input for ``-``; unreadable or binary: a BgnetError."""
    return read_text(path).splitlines()


def dice_of(text: str | None, info: object) -> Dice | None:
    """The dice typed, or else those rolled in an XGID or Match ID (None when there are none)."""
    if text is not None:
        return Dice.parse(text)
    rolled = info.rolled if isinstance(info, Xgid) else getattr(info, "dice", (0, 0))
    return Dice.of(*rolled) if rolled and rolled[0] else None


class Quit(Exception):
    """The person quit (or the input ended)."""


class Console:
    """Prompts and output; ``reader(prompt)`` returns the next line (None at the end of the input).

    Without a reader, lines come from ``stdin``; the answers are echoed after
    the prompts unless ``stdin`` is a terminal (which echoes them itself).
    """

    def __init__(
        self,
        out: IO[str] | None = None,
        reader: Callable[[str], str | None] | None = None,
        stdin: IO[str] | None = None,
    ) -> None:
        self.out = out or sys.stdout
        self.stdin = stdin or sys.stdin
        self.terminal = reader is None and _isatty(self.stdin) and self.stdin is sys.stdin
        self.echo = not self.terminal and (reader is not None or not _isatty(self.stdin))
        self.reader = reader or self._read
        self.pending: list[str] = []  # lines typed ahead, answered by the next prompts

    def push_back(self, line: str) -> None:
        """Give ``line`` to the next prompt (a command typed at one prompt that is meant for the next)."""
        self.pending.append(line)

    def _read(self, prompt: str) -> str | None:
        line = self.stdin.readline()
        return None if not line else line.rstrip("\r\n")

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        if self.pending:
            ahead = self.pending.pop(0)
            self.out.write(prompt + ahead + "\n")  # shown where it is carried out
            self.out.flush()
            return ahead.strip()
        if self.terminal:
            # A terminal: input() gives line editing (readline) and shows the prompt itself.
            self.out.flush()
            try:
                line: str | None = input(prompt)
            except EOFError:
                line = None
        else:
            self.out.write(prompt)
            self.out.flush()
            line = self.reader(prompt)
        if line is None:
            self.out.write("\n")
            raise Quit("the input ended")
        if self.echo:
            self.out.write(line + "\n")
            self.out.flush()
        return line.strip()


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
