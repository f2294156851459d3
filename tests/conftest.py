"""Session set-up shared by every test module.

Tests never write to the user's home: ``BGNET_CACHE`` (where
:func:`bgnet.bearoff.default_path` puts the bearoff database) points to a
temporary folder for the whole session, and the database is built there once
(about 10 seconds), before any test, so that no test depends on which test
ran first.  Subprocesses started by tests inherit the variable.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bgnet.bearoff import OneSidedBearoff, default_path

_BUILT: dict[str, object] = {}


@pytest.fixture(scope="session", autouse=True)
def bgnet_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A temporary ``BGNET_CACHE`` holding the bearoff database, for the whole session."""
    cache = tmp_path_factory.mktemp("bgnet-cache")
    saved = {k: os.environ.get(k) for k in ("BGNET_CACHE", "XDG_CACHE_HOME")}
    os.environ["BGNET_CACHE"] = str(cache)
    os.environ.pop("XDG_CACHE_HOME", None)
    start = time.perf_counter()
    db = OneSidedBearoff.build()
    _BUILT.update(db=db, seconds=time.perf_counter() - start)
    assert db.save() == default_path() == cache / default_path().name
    yield cache
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def bearoff_db(bgnet_cache: Path) -> OneSidedBearoff:
    """The bearoff database built for this session (also in ``BGNET_CACHE``); do not modify it."""
    return _BUILT["db"]


@pytest.fixture(scope="session")
def bearoff_build_seconds(bgnet_cache: Path) -> float:
    """How long the session's bearoff build took."""
    return _BUILT["seconds"]
