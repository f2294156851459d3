# bgnet: every target sets itself up (a .venv with the package installed editable).
PY := .venv/bin/python
STAMP := .venv/.installed

.PHONY: setup test moves bench-movegen lint clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## The main job on a shipped default: the legal plays of 3-1 from the starting position.
moves: $(STAMP)
	.venv/bin/bgnet moves 4HPwATDgc/ABMA 31

test: $(STAMP)
	$(PY) -m pytest

bench-movegen: $(STAMP)
	$(PY) benchmarks/movegen.py

lint: $(STAMP)
	.venv/bin/ruff check bgnet training tests benchmarks

clean:
	rm -rf .venv build *.egg-info
