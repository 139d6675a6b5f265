// (#version and foliage_common.glsl are prepended by the renderer)
// One instanced mesh (one variant at one level of detail, one material's triangles); each instance
// is a raw 28-byte foliage record: x y z yaw pitch roll scale.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
layout(location = 3) in vec3 i_position;
layout(location = 4) in vec4 i_rotation;  // yaw, pitch, roll (radians), scale
layout(location = 5) in float i_selected;  // 1.0 for a selected instance (a constant 0.0 without a mask)
layout(location = 6) in vec2 a_uv;

uniform mat4 u_view_projection;
uniform vec3 u_eye;
uniform int u_variant;  // the variant this draw shows; other instances are dropped
// This level's distances: it dissolves in over [x, y] (from the finer level) and out over
// [z, w] (into the coarser level, the impostor, or nothing).
uniform vec4 u_band;
// Wind preview: strength (0: still), time (s), and the mesh's height at scale 1 (m).
uniform float u_wind;
uniform float u_time;
uniform float u_mesh_height;

out vec3 v_normal;
out vec3 v_color;
out vec3 v_world;
out vec2 v_band;  // how far into the dissolve in and out (0..1), compared with the dither
out float v_selected;
out vec2 v_uv;
flat out vec2 v_shift;  // hue degrees, value change: applied to the textured colour per pixel

// A sway in world space: the trunk bends downwind with the square of the height share (its foot
// stays put), gusting at a per-instance phase; branches away from the trunk flutter faster.
vec3 wind_offset(vec3 local, float scale, uint h) {
    float phase = float(pcg(h ^ 259u) >> 8u) * (6.2831853 / 16777216.0);
    float share = clamp(local.y / max(u_mesh_height, 1e-3), 0.0, 1.5);
    float height = u_mesh_height * scale;
    float gust = 0.6 + 0.4 * sin(u_time * 0.7 + phase * 0.5);
    float bend = u_wind * 0.025 * height * share * share * gust * (1.0 + 0.35 * sin(u_time * 1.9 + phase));
    float reach = length(local.xz) * scale;
    float flutter = u_wind * 0.04 * reach * share * sin(u_time * 5.3 + phase + dot(local, vec3(2.1, 1.3, 1.7)));
    vec2 dir = vec2(0.8, 0.6);  // the preview's wind blows one way over the whole scene
    return vec3(dir.x * bend, -0.15 * bend * share, dir.y * bend) + vec3(0.3, 1.0, -0.2) * flutter;
}

void main() {
    float d = distance(u_eye, i_position);
    v_band = vec2(smoothstep(u_band.x, u_band.y, d), smoothstep(u_band.z, u_band.w, d));
    v_selected = i_selected;
    uint h = instance_hash(i_position);
    if (v_band.x <= 0.0 || v_band.y >= 1.0 || variant_of(h) != u_variant) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // not this level or variant: no triangle survives
        v_normal = vec3(0.0);
        v_color = vec3(0.0);
        v_world = vec3(0.0);
        v_uv = vec2(0.0);
        v_shift = vec2(0.0);
        return;
    }
    mat3 r = rotation(i_rotation.x, i_rotation.y, i_rotation.z);
    vec3 world = i_position + r * (a_position * i_rotation.w);
    if (u_wind > 0.0) world += wind_offset(a_position, i_rotation.w, h);
    v_normal = r * a_normal;
    v_color = a_color;
    v_shift = colour_shift(h);
    v_uv = a_uv;
    v_world = world;
    gl_Position = u_view_projection * vec4(world, 1.0);
}
