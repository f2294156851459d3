"""Atomic file writes: a temporary file in the same folder, flushed to disk, then renamed over the target.

A reader never sees a half-written file, and an interrupted write (an error, Ctrl-C) leaves the old file
as it was and no temporary file behind.  The new file gets the usual permissions (``0666`` less the
umask), not ``mkstemp``'s ``0600``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> Path:
    """Call ``write`` on a binary file that becomes ``path`` once it returns; return ``path``."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=p.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p
