#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
// The textured layers' weights, four slots each (normalised bytes; see terrain_mesh.blend).
layout(location = 3) in vec4 a_w0;
layout(location = 4) in vec4 a_w1;
layout(location = 5) in vec4 a_w2;
layout(location = 6) in vec4 a_w3;

uniform mat4 u_view_projection;
// A tile's vertices past its grid are its skirt: copies of its edges, hung this far down so a
// coarser neighbour's edge never leaves a gap.
uniform int u_grid_vertices;
uniform float u_skirt_depth;
// Baking a tile's base-colour cache: the tile drawn from above into the texture, whose texels' centres
// reach the tile's edges; vertices on those edges move out to the texture's edge so the border
// texels are covered (and equal their neighbour tile's).
uniform int u_bake;
uniform vec4 u_bake_rect;   // world x, z of the texture's corner and the metres it spans
uniform vec4 u_bake_tile;   // the tile's x0, z0, x1, z1

out vec3 v_normal;
out vec3 v_color;
out vec3 v_world;
out vec4 v_w0;
out vec4 v_w1;
out vec4 v_w2;
out vec4 v_w3;
out vec3 v_macro;
out vec3 v_half;

uniform vec3 u_eye;
uniform vec3 u_light_direction;  // towards the light

float hash(vec2 p) {
    p = fract(p * vec2(443.897, 441.423));
    p += dot(p, p.yx + 19.19);
    return fract((p.x + p.y) * p.x);
}

float value_noise(vec2 p) {
    vec2 i = floor(p), f = fract(p);
    vec2 u = f * f * (3.0 - 2.0 * f);
    return mix(mix(hash(i), hash(i + vec2(1, 0)), u.x), mix(hash(i + vec2(0, 1)), hash(i + vec2(1, 1)), u.x), u.y);
}

// Macro variation of textured ground: broad patches of lighter and darker ground, stronger with
// distance, so the repeat of the textures does not read as a grid from afar. Its patches are tens
// of metres wide, so it is worked out per vertex and interpolated, not per pixel.
vec3 macro_variation(vec3 p) {
#ifdef FLAT_COLOURS
    return vec3(1.0);
#else
    float macro = value_noise(p.xz / 23.0) * 0.5 + value_noise(p.xz / 97.0) * 0.5;
    float hue = value_noise(p.xz / 61.0 + 17.0);
    float far = smoothstep(20.0, 200.0, length(p - u_eye));
    return (1.0 + (macro - 0.5) * mix(0.35, 0.5, far)) * mix(vec3(1.08, 1.02, 0.85), vec3(0.94, 1.0, 1.06), hue);
#endif
}

void main() {
    vec3 p = a_position;
    if (gl_VertexID >= u_grid_vertices) p.y -= u_skirt_depth;
    v_normal = a_normal;
    v_color = a_color;
    if (u_bake == 1) {
        float e = 1e-3 * u_bake_rect.z;
        if (p.x <= u_bake_tile.x + e) p.x = u_bake_rect.x;
        if (p.x >= u_bake_tile.z - e) p.x = u_bake_rect.x + u_bake_rect.z;
        if (p.z <= u_bake_tile.y + e) p.z = u_bake_rect.y;
        if (p.z >= u_bake_tile.w - e) p.z = u_bake_rect.y + u_bake_rect.w;
    }
    v_world = p;
    v_macro = macro_variation(p);
    v_half = normalize(normalize(u_eye - p) + u_light_direction);
    v_w0 = a_w0;
    v_w1 = a_w1;
    v_w2 = a_w2;
    v_w3 = a_w3;
    gl_Position = u_bake == 1 ? vec4((p.xz - u_bake_rect.xy) / u_bake_rect.zw * 2.0 - 1.0, 0.0, 1.0)
                              : u_view_projection * vec4(p, 1.0);
}
