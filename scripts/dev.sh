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

ensure_venv() {
  local stamp="$venv/.boscage-stamp" want
  want="$(sha1sum pyproject.toml | cut -d' ' -f1)"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
  fi
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q -e ".[test]"
    echo "$want" >"$stamp"
  fi
}

# Blender as a Python module for the tests that import our exports into a real client: bpy 4.5
# needs Python 3.11 and numpy < 2, so it gets its own environment beside .venv.
blender_venv="$root/.venv-blender"
bpy_want="bpy==4.5.15 numpy<2"
ensure_blender() {
  local stamp="$blender_venv/.boscage-stamp" py
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$bpy_want" ]; then return; fi
  py="$(command -v python3.11 || true)"
  if [ -z "$py" ]; then
    echo "warning: python3.11 not found; the Blender import tests cannot run" >&2; return
  fi
  echo "Installing Blender as a Python module into .venv-blender (about 400 MB, once)"
  [ -x "$blender_venv/bin/python" ] || "$py" -m venv "$blender_venv"
  # shellcheck disable=SC2086
  "$blender_venv/bin/python" -m pip install -q $bpy_want
  echo "$bpy_want" >"$stamp"
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

cmd="${1:-}"; shift || true
case "$cmd" in
  run)
    ensure_system; ensure_venv
    if [ -n "${DISPLAY:-}" ]; then exec "$venv/bin/boscage" "$@"; fi
    with_display "$venv/bin/boscage" "$@" ;;
  test)
    ensure_system; ensure_venv; ensure_blender; ensure_validator
    export QT_QPA_PLATFORM=xcb LIBGL_ALWAYS_SOFTWARE=1
    "$venv/bin/ruff" check .
    # The model's tests run first in a process where Qt, OpenGL and pyqtgraph cannot be imported.
    BOSCAGE_BLOCK_GUI=1 "$venv/bin/python" -m pytest -p no:pytest-qt tests/model "$@"
    BOSCAGE_FORCE_XVFB=1 with_display "$venv/bin/python" -m pytest --ignore=tests/model "$@" ;;
  *)
    echo "usage: scripts/dev.sh run [SCENE] | test [PYTEST ARGS]" >&2; exit 2 ;;
esac
