#!/usr/bin/env bash
# One entry point for set-up: `run` opens the editor, `test` runs the whole suite.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
venv="$root/.venv"

need_apt=(xvfb xauth libgl1-mesa-dri libegl1 libglx-mesa0 libxkbcommon-x11-0 libxcb-cursor0
  libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0
  libxcb-render-util0 libxcb-image0 libfontconfig1 libdbus-1-3)

ensure_system() {
  local missing=()
  for p in "${need_apt[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || command -v sudo >/dev/null; }; then
      local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
      echo "Installing system packages: ${missing[*]}"
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    else
      echo "warning: missing system packages (${missing[*]}); GUI tests may fail" >&2
    fi
  fi
}

# Every package of .venv and .venv-blender is pinned, with its hashes, by requirements/*.lock
# (`bash scripts/dev.sh lock` writes them), so CI installs exactly what was tested here.
locks="$root/requirements"

# Digest of files: an environment is reinstalled when the digest of what it came from changes.
digest() { cat "$@" | sha1sum | cut -d' ' -f1; }

# Lower-case names with runs of "-_." as "-" (PEP 503), one a line, sorted.
normalise() { tr '[:upper:]' '[:lower:]' | sed -E 's/[-_.]+/-/g' | sort -u; }

# Installs the tools (pip, setuptools, uv) and then LOCK into VENV, checking every file's hash, and
# removes what neither lists any more so that the environment is the lock, not a superset of it.
install_locked() {  # VENV LOCK
  local py="$1/bin/python" stale
  "$py" -m pip install -q --require-hashes -r "$locks/tools.lock"
  "$py" -m pip install -q --require-hashes -r "$2"
  stale="$(comm -23 <("$py" -m pip list --format=freeze --exclude-editable | sed 's/==.*//' | normalise) \
    <(sed -nE 's/^([A-Za-z0-9][A-Za-z0-9._-]*)==.*/\1/p' "$locks/tools.lock" "$2" | normalise))"
  if [ -n "$stale" ]; then
    echo "Removing packages the locks no longer list: ${stale//$'\n'/ }"
    # shellcheck disable=SC2086
    "$py" -m pip uninstall -q -y $stale
  fi
}

ensure_venv() {
  local stamp="$venv/.boscage-stamp" want
  want="$(digest "$locks/tools.lock" "$locks/dev.lock" pyproject.toml)"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
  fi
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "Installing .venv from requirements/dev.lock"
    install_locked "$venv" "$locks/dev.lock"
    # The locked setuptools builds it: no unpinned build environment.
    "$venv/bin/python" -m pip install -q --no-deps --no-build-isolation -e .
    # Resolving pyproject's requirements against what is installed, with no index, fails when the
    # lock misses one of them (a dependency added to pyproject.toml without refreshing the lock).
    if ! "$venv/bin/python" -m pip install -q --dry-run --no-index --no-build-isolation -e ".[test,docs]"; then
      echo "error: requirements/dev.lock does not satisfy pyproject.toml; run: bash scripts/dev.sh lock" >&2
      exit 1
    fi
    echo "$want" >"$stamp"
  fi
}

# Rewrites the locks from pyproject.toml and requirements/*.in, keeping each pin that still fits;
# extra arguments go to `uv pip compile` (--upgrade, --upgrade-package NAME).
write_locks() {
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --require-hashes -r "$locks/tools.lock"
  local compile=("$venv/bin/uv" pip compile --quiet --universal --python-version 3.11 --generate-hashes
    --custom-compile-command "bash scripts/dev.sh lock")
  "${compile[@]}" "$@" requirements/tools.in -o requirements/tools.lock
  "${compile[@]}" "$@" pyproject.toml --extra test --extra docs -o requirements/dev.lock
  "${compile[@]}" "$@" requirements/blender.in -o requirements/blender.lock
  git --no-pager diff --stat -- requirements/ 2>/dev/null || true
}

# Blender as a Python module for the tests that import our exports into a real client: bpy 4.5
# needs Python 3.11 and numpy < 2 (requirements/blender.in), so it gets its own environment.
blender_venv="$root/.venv-blender"
ensure_blender() {
  local stamp="$blender_venv/.boscage-stamp" py want
  want="$(digest "$locks/tools.lock" "$locks/blender.lock")"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  if [ "$(uname -s)" = Linux ] && [ "$(uname -m)" != x86_64 ]; then
    echo "warning: bpy 4.5 has no wheel for Linux on $(uname -m); the Blender import tests cannot run" >&2
    return
  fi
  py="$(command -v python3.11 || true)"
  if [ -z "$py" ]; then
    echo "warning: python3.11 not found; the Blender import tests cannot run" >&2; return
  fi
  echo "Installing .venv-blender from requirements/blender.lock (Blender, about 400 MB the first time)"
  [ -x "$blender_venv/bin/python" ] || "$py" -m venv "$blender_venv"
  install_locked "$blender_venv" "$locks/blender.lock"
  echo "$want" >"$stamp"
}

# The Khronos glTF Validator, pinned by scripts/gltf-validator/package-lock.json.
ensure_validator() {
  local dir="$root/scripts/gltf-validator"
  if ! command -v npm >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || command -v sudo >/dev/null; }; then
      local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
    else
      echo "warning: npm not found; the glTF Validator tests cannot run" >&2; return
    fi
  fi
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

with_display() {
  if [ -n "${DISPLAY:-}" ] && [ -z "${BOSCAGE_FORCE_XVFB:-}" ]; then
    "$@"
  else
    xvfb-run -a -s "-screen 0 1920x1080x24 +extension GLX +render -noreset" "$@"
  fi
}

# Runs one part of `test` (a command or a function) and records how it ended. pytest's 5 (nothing
# collected, as when a -k selects nothing in that part) is no failure.
passed=(); failed=(); unselected=()
part() {  # NAME COMMAND...
  local name="$1" rc=0; shift
  "$@" || rc=$?
  case "$rc" in
    0) passed+=("$name") ;;
    5) unselected+=("$name") ;;
    *) failed+=("$name (exit $rc)") ;;
  esac
}

# Test paths go to the part they belong to (tests/model to the model's, others to the GUI's); the
# other arguments, pytest's options, go to both. With no path each part runs its whole suite.
run_tests() {
  local opts=() model=() gui=() a prev="" path
  for a in "$@"; do
    path="${a#./}"
    case "$prev" in
      --deselect|--ignore|--ignore-glob|--junitxml|--basetemp|--rootdir|--confcutdir|-c) path="" ;;
    esac
    case "$path" in
      tests|tests/) model+=(tests/model); gui+=(tests) ;;
      tests/model|tests/model/*) model+=("$path") ;;
      tests/*) gui+=("$path") ;;
      *) opts+=("$a") ;;
    esac
    prev="$a"
  done
  if ((${#model[@]} + ${#gui[@]} == 0)); then model=(tests/model); gui=(tests); fi
  export QT_QPA_PLATFORM=xcb LIBGL_ALWAYS_SOFTWARE=1
  part ruff "$venv/bin/ruff" check .
  # The model's tests run in a process where Qt, OpenGL and pyqtgraph cannot be imported.
  if ((${#model[@]})); then part "model tests" model_suite "${opts[@]}" "${model[@]}"
  else unselected+=("model tests"); fi
  if ((${#gui[@]})); then part "GUI tests" gui_suite "${opts[@]}" "${gui[@]}"
  else unselected+=("GUI tests"); fi
  # The user guide and references (with the whole suite): no broken link, no missing or unlisted page.
  if [[ " ${gui[*]} " == *" tests "* ]]; then part docs docs_build
  else unselected+=(docs); fi
  local summary
  summary="passed: $(joined "${passed[@]}")"
  ((${#unselected[@]} == 0)) || summary+="; nothing selected: $(joined "${unselected[@]}")"
  if ((${#failed[@]})); then
    echo "dev.sh test: FAILED: $(joined "${failed[@]}"); $summary" >&2
    return 1
  fi
  echo "dev.sh test: $summary"
}
model_suite() { BOSCAGE_BLOCK_GUI=1 "$venv/bin/python" -m pytest -p no:pytest-qt "$@"; }
gui_suite() { BOSCAGE_FORCE_XVFB=1 with_display "$venv/bin/python" -m pytest --ignore=tests/model "$@"; }
docs_build() { "$venv/bin/mkdocs" build --strict --quiet; }
joined() { (($#)) || { echo none; return; }; local s; printf -v s '%s, ' "$@"; echo "${s%, }"; }

usage="usage: scripts/dev.sh run [SCENE] | test [PYTEST ARGS] | lock [--upgrade | --upgrade-package NAME]"
cmd="${1:-}"; shift || true
case "$cmd" in
  run)
    ensure_system; ensure_venv
    if [ -n "${DISPLAY:-}" ]; then exec "$venv/bin/boscage" "$@"; fi
    with_display "$venv/bin/boscage" "$@" ;;
  test)
    ensure_system; ensure_venv; ensure_blender; ensure_validator
    run_tests "$@" ;;
  lock)
    write_locks "$@" ;;
  *)
    echo "$usage" >&2; exit 2 ;;
esac
