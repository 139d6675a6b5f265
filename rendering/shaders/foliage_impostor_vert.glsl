// (#version and foliage_common.glsl are prepended by the renderer)
// One camera-facing card per instance (turning about its up axis), textured with the view of the
// baked ring nearest to where the camera stands in the instance's own frame.
layout(location = 0) in vec2 a_corner;     // x in [-1, 1], y in [0, 1]
layout(location = 3) in vec3 i_position;
layout(location = 4) in vec4 i_rotation;   // yaw, pitch, roll, scale
layout(location = 5) in float i_selected;
layout(location = 6) in vec3 i_proxy;      // proxies: rank, representatives, instances they stand for

uniform mat4 u_view_projection;
uniform vec3 u_eye;
uniform int u_variant;
uniform vec4 u_band;
uniform int u_views;                       // views in the ring
uniform vec3 u_card;                       // half width, bottom, top of the baked views (metres)
uniform bool u_points;                     // one point sprite per instance (far, small cards)
uniform float u_focal;                     // pixels per metre at one metre: cards under
uniform float u_point_pixels;              //   u_point_pixels tall are drawn as points
uniform bool u_varied;                     // colour variation: off saves two hashes per card
uniform bool u_proxy;                      // a chunk proxy's representatives (always points)
uniform float u_proxy_start;               // all representatives up to here, fewer beyond

const float SOLID_PIXELS = 3.0;

out vec2 v_uv;
out vec3 v_world;
out vec2 v_band;
out float v_selected;
out vec2 v_shift;
out float v_yaw;
out vec2 v_sprite;  // points: card width and height over the sprite's side
flat out vec3 v_view;    // the two nearest views of the ring and how far towards the second
flat out float v_solid;  // 1: a sprite of about a pixel, drawn whole (an alpha cut would lose it)

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
    float side = max(2.0 * u_card.x, u_card.z - u_card.y);
    float pixels = side * s * u_focal / max(d, 1e-3);
    uint h = u_variant_count > 1 || u_varied ? instance_hash(i_position) : 0u;
    if (v_band.x <= 0.0 || v_band.y >= 1.0 || variant_of(h) != u_variant || present <= 0.0
            || (!u_proxy && (pixels < u_point_pixels) != u_points)) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        gl_PointSize = 1.0;
        v_uv = vec2(0.0); v_world = vec3(0.0); v_shift = vec2(0.0); v_yaw = 0.0; v_sprite = vec2(0.0);
        v_view = vec3(0.0);
        v_solid = 0.0;
        return;
    }
    v_shift = u_varied ? colour_shift(h) : vec2(0.0);
    v_yaw = i_rotation.x;
    vec2 to_eye = u_eye.xz - i_position.xz;
    to_eye = length(to_eye) > 1e-6 ? normalize(to_eye) : vec2(0.0, 1.0);
    // the camera's direction in the instance's frame: undo the yaw (world = Ry · local)
    float cy = cos(i_rotation.x), sy = sin(i_rotation.x);
    vec2 local = vec2(cy * to_eye.x - sy * to_eye.y, sy * to_eye.x + cy * to_eye.y);
    float phi = atan(local.x, local.y);
    float step = 6.28318530718 / float(u_views);
    float f = phi / step;
    float k0 = floor(f);
    v_view = vec3(mod(k0, float(u_views)), mod(k0 + 1.0, float(u_views)), f - k0);
    vec3 right = vec3(to_eye.y, 0.0, -to_eye.x);
    if (u_points) {  // the card's middle, and a square sprite as big as its longer side
        vec3 middle = i_position + vec3(0.0, 0.5 * (u_card.y + u_card.z) * s, 0.0);
        v_sprite = vec2(side / (2.0 * u_card.x), side / (u_card.z - u_card.y));
        v_uv = vec2(0.0);
        v_world = middle;
        // one depth for the whole sprite: taken half the card's height (at least a pixel's worth)
        // nearer the eye, so a crown shows over a crest as the mesh's would, and a sprite of a
        // pixel does not lose its depth test to the ground its pixel also covers
        float pull = max(0.5 * (u_card.z - u_card.y) * s, 1.5 * d / u_focal);
        vec3 towards = normalize(u_eye - middle) * pull;
        gl_Position = u_view_projection * vec4(middle + towards, 1.0);
        // under SOLID_PIXELS a sprite is one solid dot as big as the card's area (the pixels a
        // cut-out of that size keeps are too few and too random to show it)
        v_solid = pixels < SOLID_PIXELS ? 1.0 : 0.0;
        float area = sqrt(2.0 * u_card.x * (u_card.z - u_card.y)) / side;
        gl_PointSize = max(v_solid > 0.5 ? pixels * area : pixels, 1.0);
        return;
    }
    v_sprite = vec2(0.0);
    v_solid = 0.0;
    vec3 world = i_position + right * (a_corner.x * u_card.x * s)
               + vec3(0.0, mix(u_card.y, u_card.z, a_corner.y) * s, 0.0);
    v_uv = vec2(0.5 + 0.5 * a_corner.x, a_corner.y);
    v_world = world;
    gl_Position = u_view_projection * vec4(world, 1.0);
}
