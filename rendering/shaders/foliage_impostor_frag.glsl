// (#version, foliage_common.glsl and foliage_shading.glsl are prepended by the renderer)
in vec2 v_card;
in vec3 v_world;
in vec2 v_band;
in float v_selected;
in vec2 v_shift;
flat in vec4 v_cells;
flat in vec3 v_cell2;
flat in vec3 v_weight;
flat in vec4 v_map0;
flat in vec4 v_map1;
flat in vec4 v_map2;
flat in vec3 v_turn_x;
flat in vec3 v_turn_y;
uniform bool u_points;
uniform int u_frames;
uniform float u_frame_lod;

uniform sampler2D u_albedo;   // rgb: unlit colour, a: coverage
uniform sampler2D u_normals;  // rgb: the mesh's own-frame normal, 0.5 + 0.5 n; a: depth

out vec4 frag_color;

vec3 blended_colour;
vec3 blended_normal;
float blended_alpha;

// Frame `cell`'s texels at card point `card` (nothing outside the frame), added by `weight`.
void add_frame(vec2 cell, vec4 map, float weight, vec2 card, vec2 dx, vec2 dy) {
    if (weight <= 0.0) return;
    vec2 uv = 0.5 + vec2(dot(map.xy, card), dot(map.zw, card));
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0)))) return;
    float n = float(u_frames);
    float inset = 0.5 / float(textureSize(u_albedo, 0).x) * n;  // half a texel: stay off the next frame
    vec2 atlas = (cell + clamp(uv, inset, 1.0 - inset)) / n;
    vec4 albedo = textureGrad(u_albedo, atlas, dx, dy);
    if (albedo.a <= 0.0) return;
    float w = weight * albedo.a;
    blended_colour += w * albedo.rgb;
    blended_normal += w * (textureGrad(u_normals, atlas, dx, dy).xyz * 2.0 - 1.0);
    blended_alpha += w;
}

// A dot: the frames' mean colour and normal (the level where a frame is one texel).
void add_whole_frame(vec2 cell, float weight) {
    vec2 atlas = (cell + 0.5) / float(u_frames);
    vec4 albedo = textureLod(u_albedo, atlas, u_frame_lod);
    blended_colour += weight * albedo.rgb;
    blended_normal += weight * (textureLod(u_normals, atlas, u_frame_lod).xyz * 2.0 - 1.0);
    blended_alpha += weight;
}

void main() {
    if (dissolved(v_band)) discard;
    vec2 card = u_points ? vec2(2.0 * gl_PointCoord.x - 1.0, 1.0 - 2.0 * gl_PointCoord.y) : v_card;
    vec2 cells[3] = vec2[3](v_cells.xy, v_cells.zw, v_cell2.xy);
    vec4 maps[3] = vec4[3](v_map0, v_map1, v_map2);
    blended_colour = vec3(0.0);
    blended_normal = vec3(0.0);
    blended_alpha = 0.0;
    bool solid = v_cell2.z > 0.5;
    // the mip level follows the card (a frame spans half the card's coordinates), the same for
    // the three frames
    vec2 dx = dFdx(card) * (0.5 / float(u_frames)), dy = dFdy(card) * (0.5 / float(u_frames));
    if (solid) {
        for (int k = 0; k < 3; ++k) add_whole_frame(cells[k], v_weight[k]);
    } else {
        for (int k = 0; k < 3; ++k) add_frame(cells[k], maps[k], v_weight[k], card, dx, dy);
        // a coarse mip's alpha is the share of the footprint covered: cut at 0.5 it would erase
        // thin crowns far away, so there a dither keeps that share of the pixels instead
        float texels = float(textureSize(u_albedo, 0).x);
        float lod = 0.5 * log2(max(max(dot(dx, dx), dot(dy, dy)) * texels * texels, 1e-8));
        float cut = mix(0.5, bayer(gl_FragCoord.xy + vec2(1.0, 3.0)), clamp(lod - 1.0, 0.0, 1.0));
        if (blended_alpha < cut) discard;
    }
    vec3 colour = blended_colour / max(blended_alpha, 1e-6);
    vec3 local = blended_normal / max(blended_alpha, 1e-6);
    local = dot(local, local) > 1e-8 ? normalize(local) : vec3(0.0, 1.0, 0.0);
    vec3 n = normalize(v_turn_x * local.x + v_turn_y * local.y + cross(v_turn_x, v_turn_y) * local.z);
    frag_color = shade(shifted_colour(colour, v_shift), n, v_world, v_selected);
}
