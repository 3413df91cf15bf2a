"""The half of `--verify` that imports torch: it runs in the worker process, never in the
linter. Nothing outside `zlint.verify` imports it."""
