"""One file in, findings out (`lint`), and a whole run: discovery, the cache, worker processes,
the fix loop, and `pipeline`, the run every front end uses."""
