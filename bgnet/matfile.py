"""Match files in the ``.mat`` text format (Jellyfish's, which GNU Backgammon imports).

Writing follows gnubg 1.07's own export (``export.c`` ``ExportGame``), reading
follows what its importer accepts (``import.c`` ``ImportMat``)::

    ; [Site "bgnet"]

     3 point match

     Game 1
     bgnet : 0                      you : 0
      1) 52: 13/8 6/4*               63: 25/22 22/16
      2)  Doubles => 2                Takes
      3) 43: 24/20 13/10             ...
          Wins 1 point

* a header line `` N point match`` (0 for money play), comment lines
  starting with ``;``;
* per game: `` Game N``, the score line (player 0 then player 1, as gnubg
  numbers them), then numbered lines with player 0's entry in the left
  column (28 characters wide) and player 1's in the right;
* an entry is a roll and its play, one part per die (``24/22 22/21``, 25 the
  bar, 0 off, ``*`` a hit; nothing after the roll when it cannot be played),
  `` Doubles => 4``, `` Takes`` or `` Drops``;
* ``Wins N point(s)`` in the winner's column ends a game; gnubg reads it as a
  resignation when the game is still being played (the level from ``N``
  against the cube), so resigned games are written that way too.

gnubg assumes the Crawford rule in matches; so does :class:`bgnet.game.Match`.

API: :func:`format_mat` / :func:`write_mat` write a :class:`bgnet.game.Match`;
:func:`parse_mat` / :func:`read_mat` read a file back into one, replaying
every action through the game's rules (an illegal play is an error);
:func:`record_game` adds a game given as its plays (for callers that keep
their own game loop, like ``bgnet bench play``)::

    match = Match(length=0, names=("bgnet", "gnubg"))
    for first, plies in games:                 # plies: [((a, b), steps or result board), ...]
        record_game(match, first, plies)
    write_mat(match, "games.mat")
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bgnet.dice import Dice
from bgnet.errors import BgnetError, IllegalMoveError
from bgnet.game import Game, GameError, Match, Phase
from bgnet.notation import legal_plays, parse_play
from bgnet.position import Position

__all__ = [
    "MatError",
    "check_writable",
    "find_play",
    "format_mat",
    "parse_mat",
    "read_mat",
    "record_game",
    "write_mat",
]

LEFT_WIDTH = 28


class MatError(BgnetError):
    """A match file that cannot be read, or a game that cannot be recorded."""


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def _plain(board: np.ndarray, steps: Sequence[tuple[int, int]]) -> str:
    """One part per die, hits marked as they happen: ``24/22 22/21``, ``25/20*``, ``3/0``."""
    b = np.asarray(board, dtype=np.int16).copy()
    parts = []
    for src, dst in steps:
        hit = 1 <= dst <= 24 and b[dst] == -1
        b[src] -= 1
        if dst > 0:
            if hit:
                b[dst] = 0
            b[dst] += 1
        parts.append(f"{src}/{dst}{'*' if hit else ''}")
    return " ".join(parts)


def _entries(game: Game) -> list[tuple[int, str]]:
    """(player, text) of each entry of ``game`` in order, replaying its moves for the hit marks."""
    out: list[tuple[int, str]] = []
    board = game.match.start.board.copy()  # from the player who moves next
    turn = game.first
    for a in game.actions:
        if a.kind == "move":
            assert a.dice is not None
            text = f"{a.dice[0]}{a.dice[1]}: {_plain(board, a.steps)}".rstrip()
            out.append((a.player, text if a.steps else text + " "))
            board = _apply(board, a.steps)
            turn = 1 - turn
        elif a.kind == "double":
            out.append((a.player, f" Doubles => {a.value}"))
        elif a.kind == "take":
            out.append((a.player, " Takes"))
        elif a.kind == "drop":
            out.append((a.player, " Drops"))
        # resign / accept / reject leave no entry; an accepted resignation ends with "Wins".
    return out


def _apply(board: np.ndarray, steps: Sequence[tuple[int, int]]) -> np.ndarray:
    """``board`` after ``steps`` (mover's numbering), seen by the opponent."""
    b = np.asarray(board, dtype=np.int16).copy()
    for src, dst in steps:
        if b[src] <= 0:
            raise MatError(f"no checker on {src} to move ({src}/{dst})")
        b[src] -= 1
        if dst > 0:
            if b[dst] == -1:
                b[dst] = 0
                b[0] -= 1
            elif b[dst] < -1:
                raise MatError(f"point {dst} is blocked ({src}/{dst})")
            b[dst] += 1
    return (-b[::-1]).astype(np.int8)


def _game_text(game: Game, names: tuple[str, str]) -> list[str]:
    left = f"{names[0]} : {game.score[0]}"
    lines = [f" Game {game.number + 1}", f" {left:<31}{names[1]} : {game.score[1]}"]
    row: list[str | None] = [None, None]
    number = 0

    def flush() -> None:
        nonlocal number
        if row[0] is None and row[1] is None:
            return
        number += 1
        left_text = row[0] or ""
        # gnubg splits a line without two rolls at the first double space after column 15.
        width = max(LEFT_WIDTH, len(left_text) + 2) if row[1] else 0
        lines.append((f"{number:3d}) {left_text:<{width}}" + (row[1] or "")).rstrip())
        row[0] = row[1] = None

    for player, text in _entries(game):
        if player == 0:
            flush()
            row[0] = text
        else:
            if row[1] is not None:
                flush()
            row[1] = text
            flush()
    if game.over and game.winner is not None:
        s = "s" if game.points != 1 else ""
        last = game.match.length and game is game.match.games[-1] and game.match.winner is not None
        wins = f"Wins {game.points} point{s}" + (" and the match" if last else "")
        if game.winner == 1 and row[0] is not None:
            # gnubg's own layout: the right column of the last line when it is free (gnubg 1.07 misreads
            # a drop in the left column followed by "Wins" on a line of its own).
            row[1] = wins
            flush()
        else:
            flush()
            lines.append(("      " if game.winner == 0 else " " * 34) + wins)
    flush()
    lines.append("")
    return lines


def format_mat(match: Match, *, comments: Sequence[str] = ('[Site "bgnet"]',)) -> str:
    """The ``.mat`` text of ``match`` (every game, finished or not)."""
    first, second = (n.replace(":", "_").strip() or f"player {i}" for i, n in enumerate(match.names))
    names = (first, second)
    lines = [f"; {c}" for c in comments]
    lines += ["", f" {match.length} point match", ""]
    for game in match.games:
        lines += _game_text(game, names)
    return "\n".join(lines) + "\n"


def write_mat(match: Match, path: str | Path, **kwargs) -> Path:
    """Write :func:`format_mat` of ``match`` to ``path``; returns the path."""
    path = Path(path)
    path.write_text(format_mat(match, **kwargs), encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# Recording a game from its plays
# --------------------------------------------------------------------------


def record_game(
    match: Match,
    first: int,
    plies: Sequence[tuple[tuple[int, int], Sequence[tuple[int, int]] | np.ndarray | None]],
) -> Game:
    """Add a cubeless game to ``match`` from its plays, checking each one.

    Args:
        match: the match (or money session) to add the game to.
        first: the player (0 or 1) who moves first; the first ply's roll is
            the opening roll.
        plies: one ``(dice, play)`` per ply, players alternating from
            ``first``; ``play`` is the play's ``(from, to)`` steps in the
            mover's numbering (``bgnet.movegen`` steps), the resulting board
            (26 slots seen by the opponent, as ``bgnet.movegen`` returns it),
            or None / empty when the roll cannot be played.

    Returns:
        The game (over when the last ply bore off the last checker; a game
        left unfinished is kept without a result when the next one starts).

    Raises:
        MatError: a ply that is not a legal play of its roll.
    """
    if not plies:
        raise MatError("a game needs at least the opening roll and its play")
    a, b = (int(x) for x in plies[0][0])
    if a == b:
        raise MatError(f"the opening roll cannot be a double, got {a}-{b}")
    opening = (max(a, b), min(a, b)) if first == 0 else (min(a, b), max(a, b))
    try:
        game = match.new_game(opening, abandon=True)
    except GameError as e:
        raise MatError(str(e)) from None
    for n, (dice, play) in enumerate(plies):
        if game.over:
            raise MatError(f"ply {n + 1}: the game is already over")
        try:
            if n:
                game.roll(Dice.of(*(int(x) for x in dice)))
            game.move(find_play(game, play))
        except (GameError, IllegalMoveError, MatError) as e:
            raise MatError(f"game {game.number + 1}, ply {n + 1}: {e}") from None
    return game


def find_play(game: Game, play):
    """The legal play of the roll given as ``(from, to)`` steps or as the result board (None: no play)."""
    dice = game.to_play
    legal = legal_plays(Position(game.board, validate=False), dice)
    if play is None or (not isinstance(play, np.ndarray) and len(play) == 0):
        if legal:
            raise MatError(f"{dice} can be played, but no play was given")
        return None
    if isinstance(play, np.ndarray) and play.shape == (26,):
        target = Position(play.astype(np.int8), validate=False)
    else:
        target = Position(_apply(game.board, [(int(s), int(t)) for s, t in play]), validate=False)
    for p in legal:
        if p.position == target:
            return p
    raise MatError(f"the play is not legal for {dice.high}-{dice.low}")


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------

_LENGTH = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORE = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$")
_ROLL = re.compile(r"^([1-6])([1-6]):(.*)$")
_WINS = re.compile(r"^wins\s+(\d+)", re.IGNORECASE)


def _split(line: str) -> tuple[str, str | None]:
    """The left and right column entries of a move line, as gnubg's importer splits them."""
    body = line
    close = body.find(")")
    first_colon = body.find(":")
    if first_colon >= 0:
        second = body.find(":", first_colon + 1)
        if second >= 0 and second - 2 > 3:
            left, right_column = body[: second - 2], body[second - 2 :]
            if close >= 0 and close < len(left):
                left = left[close + 1 :]
            return left, right_column
    right: str | None = None
    if len(body) > 15:
        gap = body.find("  ", 15)
        if gap >= 0:
            body, right = body[:gap], body[gap:]
    if close >= 0 and close < len(body):
        body = body[close + 1 :]
    return body, right


def _do(game: Game, player: int, entry: str, where: str) -> None:
    text = entry.strip()
    if not text:
        return
    try:
        m = _ROLL.match(text)
        if m:
            if game.over:
                raise MatError(f"{where}: a roll after the end of the game")
            if player != game.turn:
                raise MatError(f"{where}: player {player} rolls, but it is player {game.turn}'s turn")
            dice = Dice.of(int(m.group(1)), int(m.group(2)))
            if game.phase is Phase.ROLL:
                game.roll(dice)
            elif game.dice != dice:
                raise MatError(f"{where}: the opening roll is {game.dice}, the file says {dice}")
            moves = m.group(3).strip()
            if not moves:
                if not len(game.legal_results()):
                    game.move(None)
                # else: a roll that was not played; gnubg reads it as a resignation to come.
                return
            game.move(parse_play(game.board, dice, moves))
            return
        low = text.lower()
        if low.startswith(("double", "beaver", "raccoon")):
            game.double(player)
        elif low.startswith("take"):
            game.take(player)
        elif low.startswith(("drop", "pass", "reject")):
            game.drop(player)
        elif wins := _WINS.match(low):
            points = int(wins.group(1))
            if game.over:
                if game.winner != player or game.points != points:
                    raise MatError(
                        f"{where}: the file says player {player} wins {points}, "
                        f"the replay gives player {game.winner} {game.points}"
                    )
                return
            cube = game.cube.value
            level = 1 if points <= cube else 2 if points <= 2 * cube else 3
            game.resign(level, 1 - player)
            game.accept(player)
        else:
            raise MatError(f"{where}: unrecognised entry {text!r}")
    except (GameError, IllegalMoveError) as e:
        raise MatError(f"{where}: {e}") from None


def parse_mat(text: str) -> Match:
    """Read ``.mat`` text into a :class:`bgnet.game.Match`, replaying and checking every action.

    Raises :class:`MatError` naming the line: no ``N point match`` header, a
    malformed score line, a score that does not follow from the games
    before, an illegal play, a cube action out of turn.
    """
    lines = text.splitlines()
    i = 0
    length = None
    while i < len(lines):
        line = lines[i].lstrip("\ufeff")
        i += 1
        if not line.strip() or line.lstrip().startswith((";", "#")):
            continue
        m = _LENGTH.match(line)
        if not m:
            raise MatError(f"line {i}: expected ' N point match', got {line.strip()!r}")
        length = int(m.group(1))
        break
    if length is None:
        raise MatError("not a .mat file: no ' N point match' line")
    match: Match | None = None
    game: Game | None = None
    while i < len(lines):
        line = lines[i]
        i += 1
        where = f"line {i}"
        if not line.strip() or line.lstrip().startswith((";", "#")):
            continue
        if _GAME.match(line):
            while i < len(lines) and not lines[i].strip():
                i += 1
            if i >= len(lines):
                raise MatError(f"{where}: a game without a score line")
            sm = _SCORE.match(lines[i])
            i += 1
            if not sm:
                got = lines[i - 1].strip()
                raise MatError(f"line {i}: expected 'name : score   name : score', got {got!r}")
            names = (sm.group(1), sm.group(3))
            score = (int(sm.group(2)), int(sm.group(4)))
            if match is None:
                match = Match(length, names, np.random.default_rng(0))
                try:
                    match.set_score(score)
                except GameError as e:
                    raise MatError(f"line {i}: {e}") from None
            if tuple(match.score) != score:
                before = tuple(match.score)
                raise MatError(f"line {i}: the score line says {score}, the games before give {before}")
            if match.over:
                break  # gnubg ignores games after the end of the match
            game = None
            continue
        if match is None:
            raise MatError(f"{where}: a move line before the first 'Game' line")
        left, right = _split(line)
        for player, entry in ((0, left), (1, right)):
            if entry is None or not entry.strip():
                continue
            if game is None:
                m = _ROLL.match(entry.strip())
                if not m:
                    raise MatError(f"{where}: a game must start with the opening roll, got {entry.strip()!r}")
                a, b = int(m.group(1)), int(m.group(2))
                hi, lo = max(a, b), min(a, b)
                if hi == lo:
                    raise MatError(f"{where}: the opening roll cannot be a double ({a}{b})")
                try:
                    game = match.new_game((hi, lo) if player == 0 else (lo, hi), abandon=True)
                except GameError as e:
                    raise MatError(f"{where}: {e}") from None
            _do(game, player, entry, where)
    if match is None:
        raise MatError("the file has no games")
    return match


def read_mat(path: str | Path) -> Match:
    """:func:`parse_mat` of the file at ``path``."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise MatError(f"cannot read {path}: {e.strerror}") from None
    return parse_mat(text)


def check_writable(path: str | Path) -> Path:
    """``path`` if a match file can be written there, else :class:`MatError` naming the problem.

    For commands that write a match at the end: check before playing it.
    Nothing is left behind (a file created to test is removed).
    """
    p = Path(path)
    if p.is_dir():
        raise MatError(f"cannot write the match to {path}: it is a directory (give a file like match.mat)")
    existed = p.exists()
    try:
        with open(p, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise MatError(f"cannot write the match to {path}: {e.strerror}") from None
    if not existed:
        p.unlink()
    return p
