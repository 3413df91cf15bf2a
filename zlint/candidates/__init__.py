"""The candidate stage: a cheap `ast` pass that decides which functions of a file the LibCST rules
need to see. `stage` is what the engine calls; `summary` holds the per-function summaries and the
predicates that `gates` (each rule's trigger words, candidate test and `may_report`) are built of.
Nothing here imports LibCST: a file in which no gate keeps a function is linted without it."""
