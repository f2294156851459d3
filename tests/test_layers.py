"""The layers of docs/architecture.md, read from the imports of every module under bgnet/ (ast).

Each module belongs to one layer and imports bgnet modules of its own layer
or of the layers before it, never of a later one.  An import inside a
function is allowed only where it is there for start-up time (a command that
needs no network must not import torch, numba-compiled code or gnubg-nn):
those are listed in FUNCTION_IMPORTS, each with its reason, and nowhere else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "bgnet"

LAYERS: list[tuple[str, set[str]]] = [
    ("base", {"bgnet", "bgnet.errors", "bgnet.stats", "bgnet.atomic"}),
    (
        "rules",
        {
            "bgnet.position",
            "bgnet.dice",
            "bgnet.movegen",
            "bgnet.variants",
            "bgnet.match",
            "bgnet.game",
            "bgnet.variant_game",
            "bgnet.lockstep",
        },
    ),
    ("formats", {"bgnet.formats", "bgnet.notation", "bgnet.fibs", "bgnet.matfile", "bgnet.variant_format"}),
    ("encoding", {"bgnet.encoding", "bgnet.bearoff"}),
    ("network", {"bgnet.network", "bgnet.probabilities", "bgnet.checkpoint"}),
    ("evaluator", {"bgnet.evaluator", "bgnet.race", "bgnet.pubeval", "bgnet.rollout"}),
    ("cube", {"bgnet.cube", "bgnet.met"}),
    (
        "players",
        {
            "bgnet.players",
            "bgnet.baselines",
            "bgnet.engine",
            "bgnet.arena",
            "bgnet.benchmark_positions",
            "bgnet.analysis",
            "bgnet.cubeful_rollout",
        },
    ),
    ("apps", {"bgnet.cli", "bgnet.__main__", "bgnet.commands", "bgnet.web"}),
]
"""The layers in order, as the table of docs/architecture.md lists them (bgnet.commands.* are apps)."""

FUNCTION_IMPORTS: dict[tuple[str, str], str] = {
    # (module, what it imports inside a function): why it is not at the top
    ("bgnet.cube", "bgnet.position"): "bgnet cube needs no board code unless asked for race pips",
    ("bgnet.cube", "bgnet.pubeval"): "bgnet cube must not compile or import the move generator",
    ("bgnet.evaluator", "bgnet.checkpoint"): "the network layer's files are read only when loading one",
    ("bgnet.evaluator", "bgnet.bearoff"): "the bearoff database is built or loaded only when asked for",
    ("bgnet.players", "bgnet.evaluator"): "players that are not bgnet's need no torch",
    ("bgnet.players", "bgnet.network"): "checking that the machine has a spec's device loads torch",
    ("bgnet.players", "gnubg_nn"): "gnubg-nn is an optional extra, imported for gnubg players only",
    ("bgnet.arena", "torch"): "worker processes set their torch threads; the arena itself needs no torch",
    ("bgnet.cli", "bgnet.evaluator"): "moves and --help without a network must not import torch",
    ("bgnet.cli", "bgnet.checkpoint"): "watch reads the checkpoint's counters; other commands need no torch",
    ("bgnet.cli", "bgnet.commands"): "the command modules register their options when the parser is built",
    ("bgnet.cli", "bgnet.lockstep"): "watch only",
    ("bgnet.cli", "bgnet.pubeval"): "watch only",
    ("bgnet.cli", "bgnet_training"): "the train command, only when the training package is installed",
    ("bgnet.cli", "training"): "the train command, only when the training package is installed",
    ("bgnet.commands", "*"): "each command imports what it needs when it runs, not when the parser is built",
}


def _layer_of(module: str) -> int | None:
    for i, (_name, members) in enumerate(LAYERS):
        if module in members or any(module.startswith(m + ".") for m in members if m != "bgnet"):
            return i
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[str, bool, int]]:
    """(imported module, inside a function, line) of every import of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, bool, int]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.Import):
                out.extend((alias.name, in_function, child.lineno) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                if child.module == "bgnet":  # from bgnet import checkpoint, arena, ...
                    out.extend((f"bgnet.{alias.name}", in_function, child.lineno) for alias in child.names)
                else:
                    out.append((child.module, in_function, child.lineno))
            visit(child, inner)

    visit(tree, False)
    return out


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer():
    missing = [_module_name(p) for p in MODULES if _layer_of(_module_name(p)) is None]
    assert not missing, f"modules without a layer in LAYERS (and docs/architecture.md): {missing}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_imports_a_later_layer(path):
    me = _module_name(path)
    mine = _layer_of(me)
    upward = []
    for target, _inner, line in _imports(path):
        if not (target == "bgnet" or target.startswith("bgnet.")):
            continue
        theirs = _layer_of(target)
        if theirs is not None and theirs > mine:
            upward.append(f"line {line}: {me} ({LAYERS[mine][0]}) imports {target} ({LAYERS[theirs][0]})")
    assert not upward, "\n".join(upward)


def _allowed(module: str, target: str) -> bool:
    for (who, what), _why in FUNCTION_IMPORTS.items():
        if module != who and not module.startswith(who + "."):
            continue
        if what == "*" or target == what or target.startswith(what + "."):
            return True
    return False


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_function_level_imports_are_only_the_listed_start_up_ones(path):
    me = _module_name(path)
    heavy = ("bgnet", "torch", "numba", "gnubg_nn", "training", "bgnet_training")
    stray = [
        f"line {line}: {me} imports {target} inside a function"
        for target, inner, line in _imports(path)
        if inner and target.split(".")[0] in heavy and not _allowed(me, target)
    ]
    assert not stray, "\n".join(stray) + "\n(import at the top, or list it in FUNCTION_IMPORTS with a reason)"


def test_the_layer_checker_sees_an_upward_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import numpy\n\ndef f():\n    from bgnet.players import NetPlayer\n", encoding="utf-8")
    assert ("bgnet.players", True, 4) in _imports(bad)
    assert _layer_of("bgnet.players") > _layer_of("bgnet.movegen")
    assert _layer_of("bgnet.commands.play") == len(LAYERS) - 1
