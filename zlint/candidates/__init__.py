"""The candidate stage: a cheap `ast` pass that decides which functions of a file the LibCST rules
need to see. `stage` is what the engine calls; `summary` holds the per-function summaries and the
predicates rules declare as their `candidate` (rules reach them through `zlint.rules.api`)."""
