"""Run-wide scope, on `ast` only: a summary of each file (`file_summary`), the names across the
run (`names`), which functions dynamo compiles (`classify`, `compile_state`, `host_roles`), the
project index built before linting (`index`), and where a finding then belongs (`placement`)."""
