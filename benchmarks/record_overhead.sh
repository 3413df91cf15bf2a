#!/bin/bash
# The cost of `zlint record` on the model workloads: each workload's plain eager run
# (run_eager.py) and the same command under `zlint record`, side by side, whole processes
# (interpreter start and imports included, as a user runs them), three times each, interleaved.
# usage: benchmarks/record_overhead.sh LABEL wl_llama_lm wl_bert_textcls ...
# appends "LABEL WORKLOAD plain|record REP WALL USER SYS load=..." to $OUT (default /tmp/record_overhead.txt);
# RESULTS-record.md shows how the table is read from it.
V=${WORKLOAD_VENV:-$HOME/.cache/zlint-workloads/venv}/bin/python
W=${WORKLOADS:-$(cd "$(dirname "$0")/../../shared/workloads" && pwd)}
ZLINT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/record_overhead.txt}
TMP=$(mktemp -d)
label=$1; shift
cd "$TMP" || exit 2
for wl in "$@"; do
  for rep in 1 2 3; do
    /usr/bin/time -o $TMP/t -f "%e %U %S" "$V" "$W/run_eager.py" "$W/$wl.py" >/dev/null 2>&1
    echo "$label $wl plain $rep $(cat $TMP/t) load=$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT"
    PYTHONPATH="$ZLINT" /usr/bin/time -o $TMP/t -f "%e %U %S" "$V" -m zlint record --out "$TMP/$wl.json" "$W/run_eager.py" "$W/$wl.py" >/dev/null 2>&1
    echo "$label $wl record $rep $(cat $TMP/t) load=$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT"
  done
done
echo "$label done" >> "$OUT"
