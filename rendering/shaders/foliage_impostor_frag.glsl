// (#version, foliage_common.glsl and foliage_shading.glsl are prepended by the renderer)
in vec2 v_card;
in vec3 v_world;
in vec2 v_band;
in float v_selected;
in vec2 v_shift;
flat in vec4 v_cells;
flat in vec4 v_cell2;
flat in vec4 v_weight;
flat in vec4 v_map0;
flat in vec4 v_map1;
flat in vec4 v_map2;
flat in vec4 v_parallax;
flat in vec3 v_turn_x;
flat in vec3 v_turn_y;
uniform bool u_points;
uniform int u_frames;
uniform float u_frame_lod;

// premultiplied by the coverage (rendering/impostors.py)
uniform sampler2D u_albedo;   // rgb: unlit colour, a: coverage
uniform sampler2D u_normals;  // rgb: the mesh's own-frame normal, 0.5 + 0.5 n; a: translucency
uniform sampler2D u_depth;    // towards the camera, 0.5 on the frame's plane (not premultiplied)

out vec4 frag_color;

vec3 blended_colour;
vec4 blended_normal;  // and translucency
float blended_alpha;

vec2 in_atlas(vec2 cell, vec2 uv) {
    float n = float(u_frames);
    float inset = 0.5 / float(textureSize(u_albedo, 0).x) * n;  // half a texel: stay off the next frame
    return (cell + clamp(uv, inset, 1.0 - inset)) / n;
}

// Frame `cell`'s texels at card point `card` (nothing outside the frame), added by `weight`.
void add_frame(vec2 cell, vec4 map, vec2 parallax, float weight, vec2 card, vec2 dx, vec2 dy) {
    if (weight <= 0.0) return;
    vec2 uv = 0.5 + vec2(dot(map.xy, card), dot(map.zw, card));
    // one parallax step: the surface baked here lies off the frame's plane, so the view ray
    // meets it elsewhere in a frame baked from another direction (the frames then agree)
    if (parallax != vec2(0.0)) uv += (textureGrad(u_depth, in_atlas(cell, uv), dx, dy).r - 0.5) * parallax;
    if (any(lessThan(uv, vec2(0.0))) || any(greaterThan(uv, vec2(1.0)))) return;
    vec2 atlas = in_atlas(cell, uv);
    vec4 albedo = textureGrad(u_albedo, atlas, dx, dy);
    if (albedo.a <= 0.0) return;
    blended_colour += weight * albedo.rgb;
    blended_normal += weight * textureGrad(u_normals, atlas, dx, dy);
    blended_alpha += weight * albedo.a;
}

// A dot: the frames' mean colour and normal where covered (the level where a frame is one texel).
void add_whole_frame(vec2 cell, float weight) {
    vec2 atlas = (cell + 0.5) / float(u_frames);
    vec4 albedo = textureLod(u_albedo, atlas, u_frame_lod);
    blended_colour += weight * albedo.rgb;
    blended_normal += weight * textureLod(u_normals, atlas, u_frame_lod);
    blended_alpha += weight * albedo.a;
}

void main() {
    if (dissolved(v_band)) discard;
    vec2 card = u_points ? vec2(2.0 * gl_PointCoord.x - 1.0, 1.0 - 2.0 * gl_PointCoord.y) : v_card;
    vec2 cells[3] = vec2[3](v_cells.xy, v_cells.zw, v_cell2.xy);
    vec4 maps[3] = vec4[3](v_map0, v_map1, v_map2);
    vec2 parallax[3] = vec2[3](v_parallax.xy, v_parallax.zw, v_cell2.zw);
    blended_colour = vec3(0.0);
    blended_normal = vec4(0.0);
    blended_alpha = 0.0;
    // the mip level follows the card, the same for the three frames (their scales differ little)
    vec2 uv0 = vec2(dot(v_map0.xy, card), dot(v_map0.zw, card)) / float(u_frames);
    vec2 dx = dFdx(uv0), dy = dFdy(uv0);
    if (v_weight.w > 0.5) {
        for (int k = 0; k < 3; ++k) add_whole_frame(cells[k], v_weight[k]);
    } else if (u_points) {
        // a far sprite reads one frame a pixel, picked by a dither weighted as the three blend
        // (the same mix on screen, a third of the reads; too small for parallax to show)
        float pick = bayer(gl_FragCoord.xy + vec2(2.0, 1.0));
        int k = pick < v_weight.x ? 0 : (pick < v_weight.x + v_weight.y ? 1 : 2);
        add_frame(cells[k], maps[k], vec2(0.0), 1.0, card, dx, dy);
    } else {
        for (int k = 0; k < 3; ++k) add_frame(cells[k], maps[k], parallax[k], v_weight[k], card, dx, dy);
    }
    if (v_weight.w < 0.5) {
        // a coarse mip's alpha is the share of the footprint covered: cut at 0.5 it would erase
        // thin crowns far away, so there a dither keeps that share of the pixels instead
        float texels = float(textureSize(u_albedo, 0).x);
        float lod = 0.5 * log2(max(max(dot(dx, dx), dot(dy, dy)) * texels * texels, 1e-8));
        float cut = mix(0.5, bayer(gl_FragCoord.xy + vec2(1.0, 3.0)), clamp(lod - 1.0, 0.0, 1.0));
        if (blended_alpha < cut) discard;
    }
    vec3 colour = blended_colour / max(blended_alpha, 1e-6);
    vec3 local = blended_normal.xyz / max(blended_alpha, 1e-6) * 2.0 - 1.0;
    local = dot(local, local) > 1e-8 ? normalize(local) : vec3(0.0, 1.0, 0.0);
    vec3 n = v_turn_x * local.x + v_turn_y * local.y + cross(v_turn_x, v_turn_y) * local.z;
    float translucency = blended_normal.w / max(blended_alpha, 1e-6);
    frag_color = shade_with(shifted_colour(colour, v_shift), n, v_world, v_selected, translucency);
}
