"""LibCST plumbing: the version guard over the internals zlint uses (`compat`), the batched walk
every fact and rule shares (`batched`), and statement positions (`positions`)."""
