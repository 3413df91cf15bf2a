"""Worker processes for the per-file pass of a run (each file's project-index summary and findings).

``multiprocessing`` is imported when a pool starts: a run with no worker (every file a cache
hit, or too few files) never loads it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from collections.abc import Iterator
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


#: the collector's thresholds while linting: young collections every 20,000 allocations
COLLECTOR_THRESHOLDS = (20_000, 50, 1_000)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Collect garbage less often while linting. Parsing allocates millions of tree nodes that
    live until their file is done and form almost no cycles, so the default thresholds rescan
    them over and over (about 10% of a cold run); what is alive on entry (imported modules) is
    kept out of every scan. Workers forked inside inherit both; on exit the process is as before
    (a host that calls zlint in-process keeps its own collector settings)."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
