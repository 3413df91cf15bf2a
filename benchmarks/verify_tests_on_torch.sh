#!/usr/bin/env bash
# Run the --verify test files under another torch (CI keeps the pinned one).
#   benchmarks/verify_tests_on_torch.sh /tmp/venv215/bin/python
# That interpreter needs torch, libcst and pytest; zlint comes from this checkout. The files run
# one by one (each compiles for real on the CPU).
set -u
python=${1:?usage: $0 PYTHON [TEST_FILE ...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$root"/tests/test_verify*.py)
"$python" -c "import torch; print('torch', torch.__version__)"
status=0
for f in "${files[@]}"; do
  echo "== $f"
  PYTHONPATH="$root" "$python" -m pytest -q -p no:logging -p no:cacheprovider "$f" | tail -3 || status=1
done
exit $status
