# bgnet: every target sets itself up (a .venv with the package installed editable).
PY := .venv/bin/python
STAMP := .venv/.installed

.PHONY: setup test test-fast watch play web moves train bench-movegen bench-selfplay bench-pubeval bench-eval bench-rollout bench-web lint clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## The main job on a shipped default: the shipped network plays pubeval, move by move.
watch: $(STAMP)
	.venv/bin/bgnet watch

## Play a 5-point match against the shipped network in this terminal.
play: $(STAMP)
	.venv/bin/bgnet play --match 5

## Play and analyse in the browser: serves http://127.0.0.1:8080/ (Ctrl-C stops it).
web: $(STAMP)
	.venv/bin/bgnet web

## The plays of 3-1 from the starting position, ranked by the shipped network.
moves: $(STAMP)
	.venv/bin/bgnet moves 4HPwATDgc/ABMA 31 --rank

## Train the shipped network's recipe into runs/default/ (run it again to resume).
train: $(STAMP)
	.venv/bin/bgnet train --config configs/default.toml

## The whole test suite (a few minutes).
test: $(STAMP)
	$(PY) -m pytest

## The tests not marked slow (under a minute): gnubg differential runs, whole sessions and long
## self-play are left out.
test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow"

bench-movegen: $(STAMP)
	$(PY) benchmarks/movegen.py

bench-selfplay: $(STAMP)
	$(PY) benchmarks/selfplay.py

bench-pubeval: $(STAMP)
	$(PY) benchmarks/vs_pubeval.py

bench-eval: $(STAMP)
	$(PY) benchmarks/eval.py

## bgnet's rollouts against GNU Backgammon 1.07's (the Debian gnubg program), games per second, one thread.
bench-rollout: $(STAMP)
	OMP_NUM_THREADS=1 $(PY) benchmarks/rollout.py

bench-web: $(STAMP)
	$(PY) benchmarks/web_load.py

lint: $(STAMP)
	.venv/bin/ruff check bgnet training tests benchmarks
	.venv/bin/ruff format --check bgnet training tests benchmarks
	.venv/bin/mypy

clean:
	rm -rf .venv build *.egg-info
