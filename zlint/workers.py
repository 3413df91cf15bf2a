"""Worker processes for the per-file passes of a run (the project index, then linting).

``multiprocessing`` is imported when a pool starts: a run with no worker (every file a cache
hit, or too few files) never loads it.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import multiprocessing.pool

#: below this many files per worker, starting workers costs more than it saves
MIN_FILES_PER_WORKER = 4


def default_jobs() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def worker_pool(workers: int) -> multiprocessing.pool.Pool:
    """A pool of ``workers`` processes. On Linux they fork, starting in milliseconds with what
    this process already imported; elsewhere (macOS, Windows) the platform default."""
    import multiprocessing

    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork").Pool(workers)
    return multiprocessing.get_context().Pool(workers)
