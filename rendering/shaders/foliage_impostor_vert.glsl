// (#version, foliage_common.glsl and foliage_octahedral.glsl are prepended by the renderer)
// One camera-facing card per instance, spanning its mesh's bounding box as the camera sees it,
// showing the three frames of the baked hemi-octahedral atlas nearest the direction the camera sees
// the instance from (in its own frame: yaw, pitch and roll turn the views), blended by the grid's
// barycentrics.
layout(location = 0) in vec2 a_corner;     // x, y in [-1, 1]
layout(location = 3) in vec3 i_position;
layout(location = 4) in vec4 i_rotation;   // yaw, pitch, roll, scale
layout(location = 5) in float i_selected;
layout(location = 6) in vec3 i_proxy;      // proxies: rank, representatives, instances they stand for

uniform mat4 u_view_projection;
uniform vec3 u_eye;
uniform vec3 u_cam_right;                  // the camera's screen axes in the world (point sprites)
uniform vec3 u_cam_up;
uniform int u_variant;
uniform vec4 u_band;
uniform int u_frames;                      // frames along a side of the atlas
uniform float u_frame_lod;                 // the mip level where a frame is one texel
uniform vec4 u_sphere;                     // the frames' centre and half side (mesh frame, metres)
uniform vec3 u_box;                        // the mesh's bounding box's half size about that centre
uniform sampler2D u_albedo;                // a solid dot's size follows its frames' coverage
uniform bool u_points;                     // one point sprite per instance (far, small cards)
uniform float u_focal;                     // pixels per metre at one metre: cards under
uniform float u_point_pixels;              //   u_point_pixels across are drawn as points
uniform bool u_varied;                     // colour variation: off saves two hashes per card
uniform bool u_proxy;                      // a chunk proxy's representatives (always points)
uniform float u_proxy_start;               // all representatives up to here, fewer beyond

const float SOLID_PIXELS = 3.0;

out vec2 v_card;          // where in the card, [-1, 1]² (quads; points take gl_PointCoord)
out vec3 v_world;
out vec2 v_band;
out float v_selected;
out vec2 v_shift;
// (packed into 15 vectors: GL 3.3 promises 16)
flat out vec4 v_cells;    // the three frames' cells in the grid: first, second…
flat out vec4 v_cell2;    // …third; and its parallax (below)
flat out vec4 v_weight;   // the frames' weights; w: 1 for a sprite of about a pixel drawn whole
flat out vec4 v_map0;     // per frame: its texture coordinates = 0.5 + (map.xy · card, map.zw · card)
flat out vec4 v_map1;
flat out vec4 v_map2;
flat out vec4 v_parallax; // per frame: how far its texture coordinates move per unit of baked depth
                          // off its plane, following the view ray (first two; the third in v_cell2)
flat out vec3 v_turn_x;   // the instance's rotation (its first two columns): baked normals to the world
flat out vec3 v_turn_y;

vec2 cell[3];
vec4 map[3];
vec2 parallax[3];

void hide() {
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    gl_PointSize = 1.0;
    v_card = vec2(0.0); v_world = vec3(0.0); v_shift = vec2(0.0);
    v_cells = vec4(0.0); v_cell2 = vec4(0.0); v_weight = vec4(0.0);
    v_map0 = vec4(0.0); v_map1 = vec4(0.0); v_map2 = vec4(0.0);
    v_parallax = vec4(0.0);
    v_turn_x = vec3(1.0, 0.0, 0.0); v_turn_y = vec3(0.0, 1.0, 0.0);
}

// The three frames round view direction `view` (the instance's frame) and their weights.
void nearest_frames(vec3 view) {
    vec3 d = vec3(view.x, max(view.y, 0.0), view.z);  // below the horizon: seen from the horizon
    if (dot(d, d) < 1e-12) d = vec3(0.0, 0.0, 1.0);
    vec2 g = (hemi_octahedral(normalize(d)) * 0.5 + 0.5) * float(u_frames - 1);
    vec2 base = clamp(floor(g), vec2(0.0), vec2(float(u_frames - 2)));
    vec2 f = g - base;
    if (f.x + f.y <= 1.0) {
        cell[0] = base; cell[1] = base + vec2(1.0, 0.0); cell[2] = base + vec2(0.0, 1.0);
        v_weight.xyz = vec3(1.0 - f.x - f.y, f.x, f.y);
    } else {
        cell[0] = base + vec2(1.0); cell[1] = base + vec2(1.0, 0.0); cell[2] = base + vec2(0.0, 1.0);
        v_weight.xyz = vec3(f.x + f.y - 1.0, 1.0 - f.y, 1.0 - f.x);
    }
}

// Frame k's texture coordinates of a card point: the view ray through it (rays parallel at a
// card's distance) meets the plane the frame was baked on.
void frame_maps(vec3 view, vec3 card_right, vec3 card_up) {
    for (int k = 0; k < 3; ++k) {
        vec3 d = frame_direction(cell[k], u_frames);
        mat2x3 axes = frame_axes(d);
        float along = max(dot(view, d), 0.1);
        vec3 r = card_right - dot(card_right, d) / along * view;
        vec3 u = card_up - dot(card_up, d) / along * view;
        map[k] = 0.5 * vec4(dot(r, axes[0]), dot(u, axes[0]), dot(r, axes[1]), dot(u, axes[1]));
        parallax[k] = vec2(dot(view, axes[0]), dot(view, axes[1])) / along;
    }
}

void main() {
    float d = distance(u_eye, i_position);
    v_band = vec2(smoothstep(u_band.x, u_band.y, d), smoothstep(u_band.z, u_band.w, d));
    v_selected = i_selected;
    float s = i_rotation.w;
    float present = 1.0;
    if (u_proxy) {  // keep about one per PROXY_PIXELS² / PROXY_CAP pixels, grown to cover the rest
        float kept = i_proxy.y * min(1.0, pow(u_proxy_start / max(d, 1e-3), 2.0));  // foliage_proxies.py
        present = clamp(kept - i_proxy.x, 0.0, 1.0);
        s *= sqrt(present * i_proxy.z / max(kept, 1e-6));
    }
    float side = 2.0 * u_sphere.w;
    float pixels = side * s * u_focal / max(d, 1e-3);
    uint h = u_variant_count > 1 || u_varied ? instance_hash(i_position) : 0u;
    if (v_band.x <= 0.0 || v_band.y >= 1.0 || variant_of(h) != u_variant || present <= 0.0
            || (!u_proxy && (pixels < u_point_pixels) != u_points)) {
        hide();
        return;
    }
    v_shift = u_varied ? colour_shift(h) : vec2(0.0);
    mat3 turn = rotation(i_rotation.x, i_rotation.y, i_rotation.z);
    v_turn_x = turn[0];
    v_turn_y = turn[1];
    vec3 centre = i_position + turn * (u_sphere.xyz * s);
    float radius = u_sphere.w * s;
    vec3 to_eye = u_eye - centre;
    vec3 view = length(to_eye) > 1e-6 ? normalize(to_eye) : vec3(0.0, 1.0, 0.0);
    // points: the sprite is square on the screen; quads: the card faces the eye, upright on screen
    vec3 card_right = u_points ? u_cam_right : normalize(cross(u_cam_up, view));
    vec3 card_up = u_points ? u_cam_up : cross(view, card_right);
    mat3 to_local = transpose(turn);
    vec3 local_view = to_local * view;
    vec3 local_right = to_local * card_right, local_up = to_local * card_up;
    // the card spans the bounding box as the camera sees it, not the whole sphere: a tall tree's
    // card is narrow from the side and a crown's square from above (a third of the pixels)
    vec2 reach = min(vec2(dot(abs(local_right), u_box), dot(abs(local_up), u_box)) * 1.02,
                     vec2(u_sphere.w)) * s;
    if (u_points) reach = vec2(max(reach.x, reach.y));  // a square sprite
    vec2 scale = reach / radius;  // card coordinates to the frames' (their half side is 1)
    nearest_frames(local_view);
    frame_maps(local_view, local_right * scale.x, local_up * scale.y);
    v_cells = vec4(cell[0], cell[1]);
    v_map0 = map[0]; v_map1 = map[1]; v_map2 = map[2];
    v_parallax = vec4(parallax[0], parallax[1]);
    if (u_points) {
        v_card = vec2(0.0);
        v_world = centre;
        // one depth for the whole sprite: the sphere's near side (at least a pixel's worth nearer
        // the eye), so a crown shows over a crest as the mesh's would, and a sprite of a pixel does
        // not lose its depth test to the ground its pixel also covers
        float pull = max(radius, 1.5 * d / u_focal);
        gl_Position = u_view_projection * vec4(centre + view * pull, 1.0);
        // under SOLID_PIXELS a sprite is one solid dot covering what the frames cover (the pixels a
        // cut-out of that size keeps are too few and too random to show it)
        bool solid = pixels < SOLID_PIXELS;
        v_cell2 = vec4(cell[2], parallax[2]);
        v_weight.w = solid ? 1.0 : 0.0;
        float size = pixels * scale.x;
        if (solid) {
            float cover = 0.0;
            for (int k = 0; k < 3; ++k) {
                vec2 uv = (cell[k] + 0.5) / float(u_frames);
                cover += v_weight[k] * textureLod(u_albedo, uv, u_frame_lod).a;
            }
            size = pixels * sqrt(cover);
        }
        gl_PointSize = max(size, 1.0);
        return;
    }
    v_cell2 = vec4(cell[2], parallax[2]);
    v_weight.w = 0.0;
    v_card = a_corner;
    vec3 world = centre + card_right * (a_corner.x * reach.x) + card_up * (a_corner.y * reach.y);
    v_world = world;
    gl_Position = u_view_projection * vec4(world, 1.0);
}
