#!/usr/bin/env bash
# The documentation's pictures, made by Boscage itself: `bash scripts/docs_pictures.sh` rewrites every
# PNG under docs/images/ (each a `boscage --screenshot` of a scene from a fixed camera).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
py="${PYTHON:-$root/.venv/bin/python}"
out="$root/docs/images"
size=1200x750
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PYTHONPATH="$root" BOSCAGE_SETTINGS_DIR="$work/settings"  # the checkout's code; no user settings
export LIBGL_ALWAYS_SOFTWARE=1 QT_QPA_PLATFORM=xcb  # Mesa's renderer: the same look on every machine
mkdir -p "$out"

boscage() {
  if [ -n "${DISPLAY:-}" ]; then "$py" -m app "$@"
  else xvfb-run -a -s "-screen 0 1920x1080x24 +extension GLX +render -noreset" "$py" -m app "$@"; fi
}

shot() {  # NAME SCENE [OPTIONS…]: docs/images/NAME.png
  local name="$1" scene="$2"; shift 2
  echo "docs/images/$name.png"
  boscage --screenshot "$out/$name.png" --size "$size" "$@" "$scene"
}

demo="$root/resources/demo/demo.boscage"
# The editor as it opens on the bundled demo scene: looking across its densest patch.
shot editor "$demo"
# From high above the south edge: the paint layers (grass, forest floor, rock, sand) and the forests.
shot overview "$demo" --camera=0,520,-820,0,0,-60
# Among the trees: meshes near, their coarser levels and impostor cards further off, grass underfoot.
shot forest "$demo" --camera=-150,40,-190,-60,18,-60
# Close up below a cliff: textured grass and forest floor underfoot, the rock's triplanar projection
# on the cliff face (its texture at its size instead of stretched down the slope).
shot textured-ground "$demo" --camera=320,70,470,225,40,350
# The whole scene from far away: every forest still shows, drawn by impostors and far proxies.
shot far-forest "$demo" --camera=-1050,330,-1050,-100,0,-100

# A spawner run on a copy of the demo: broadleaf groves on the grass, bushes around them.
cp "$root"/resources/demo/demo.* "$work/"
cp -r "$root"/resources/demo/textures "$work/"  # the layers' maps, which the manifest names
cat >"$work/groves.toml" <<'TOML'
[[spawners]]
name = "groves"
seed = 7
area = { layer = "grass", min_weight = 0.5 }
[[spawners.species]]
type = "broadleaf"
density = 2.0
order = 0
exclusion = 3.0
conditions = [{ slope = [0, 20] }, { noise = { scale = 90.0, threshold = 0.6, seed = 3 } }]
[[spawners.species]]
type = "bush"
density = 6.0
order = 1
conditions = [{ near = { type = "broadleaf", within = 10.0 } }]
TOML
"$py" -m app spawn "$work/demo.boscage" --recipe "$work/groves.toml" --save >/dev/null
shot spawner "$work/demo.boscage" --camera=-60,150,-470,0,20,-180
