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

# The terrain tools, each on its own copy of the demo, each picture from a fixed camera.
copy_demo() {  # NAME: a fresh copy of the demo (with its textures) at $work/NAME/demo.boscage
  mkdir -p "$work/$1"
  cp "$root"/resources/demo/demo.* "$work/$1/"
  cp -r "$root"/resources/demo/textures "$work/$1/"
  echo "$work/$1/demo.boscage"
}
hills_camera=--camera=-20,150,-470,-250,25,-250  # the south-west hill, from the south-east
# Hydraulic erosion: rain droplets carve channels down the south-west hill and leave fans below it.
scene="$(copy_demo eroded)"
"$py" -m app terrain erode "$scene" --hydraulic --iterations 4 --seed 7 --save >/dev/null
shot terrain-erosion "$scene" "$hills_camera"
# Terraces cut into the same hill.
scene="$(copy_demo terraced)"
"$py" -m app terrain terrace "$scene" --step 6 --sharpness 0.8 --region=-440,-440,-80,-80 --save >/dev/null
shot terrain-terrace "$scene" "$hills_camera"
# A crater stamped onto the flat south-east grass: a heightmap image placed, turned and blended by min.
scene="$(copy_demo stamped)"
"$py" - "$work/crater.npy" <<'PY'
import sys
import numpy as np
r = np.hypot(*np.meshgrid(np.linspace(-1, 1, 257), np.linspace(-1, 1, 257)))  # picture input only
rim = np.clip(1.0 - np.abs(r - 0.7) / 0.3, 0.0, 1.0)  # a ring wall, 0 at the image's edge
np.save(sys.argv[1], np.maximum(rim, 0.15 * (r < 0.7)).astype(np.float32))  # a floor inside it
PY
"$py" -m app terrain stamp "$scene" "$work/crater.npy" --at=300,-300 --radius 70 --height 18 --save >/dev/null
shot terrain-stamp "$scene" --camera=300,120,-520,300,10,-300
# A road over the shoulder of the south-west hill (flat across, its grade held under 8 %, foliage cleared, sand painted)
# and a hole punched into the ground beside it.
scene="$(copy_demo road)"
cat >"$work/road.json" <<'JSON'
{"points": [[-480, -120], [-380, -170], [-290, -230], [-200, -320], [-110, -420]]}
JSON
"$py" -m app terrain spline "$scene" "$work/road.json" --width 10 --falloff 8 --kind road --max-grade 8 \
  --paint sand --clear-foliage --name road --save >/dev/null
shot terrain-road "$scene" "$hills_camera"
"$py" -m app terrain holes "$scene" --paint=-250,-200 --radius 18 --save >/dev/null
shot terrain-holes "$scene" --camera=-250,160,-260,-250,30,-200
