#!/usr/bin/env bash
# The same bytes on every machine: run the byte-promised commands (scripts/output_digests.py) as this
# machine is and again with numpy's SIMD narrowed to its baseline, numba compiling for a generic CPU
# from a fresh cache, and OpenBLAS on its oldest kernels; then the byte-pinned tests (marker `bytes`)
# narrowed. Any difference fails. Needs the .venv that `scripts/dev.sh test` makes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
py="$root/.venv/bin/python"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# every SIMD group numpy dispatches to beyond its baseline that this CPU has
extra="$("$py" -c 'from numpy._core import _multiarray_umath as m
print(" ".join(f for f in m.__cpu_dispatch__ if m.__cpu_features__.get(f)))')"
narrowed() {
  NPY_DISABLE_CPU_FEATURES="$extra" NUMBA_CPU_NAME=generic NUMBA_CACHE_DIR="$work/numba" \
    OPENBLAS_CORETYPE="${BOSCAGE_NARROW_BLAS:-Prescott}" "$@"
}

echo "portability: numpy's dispatch here: ${extra:-none beyond the baseline}; narrowed: all of it off"
"$py" scripts/output_digests.py >"$work/machine.json"
narrowed "$py" scripts/output_digests.py >"$work/narrowed.json"
if ! diff -u "$work/machine.json" "$work/narrowed.json"; then
  echo "portability: FAILED: the outputs above differ with the SIMD narrowed" >&2
  exit 1
fi
echo "portability: $(grep -c '": "' "$work/machine.json") output files, the same bytes both ways"
narrowed env BOSCAGE_BLOCK_GUI=1 "$py" -m pytest -p no:pytest-qt -q -m bytes tests/model "$@"
narrowed "$py" -m pytest -q -m bytes --ignore=tests/model tests "$@"
