// (#version, foliage_common.glsl and foliage_shading.glsl are prepended by the renderer)
in vec3 v_normal;
in vec3 v_color;
in vec3 v_world;
in vec2 v_band;
in float v_selected;
in vec2 v_uv;
flat in vec2 v_shift;

// The material of this draw (rendering/foliage_materials.py).
uniform vec4 u_base_factor;     // alpha: the factor's (its colour is in the vertex colours)
uniform int u_alpha_mode;       // 0 opaque, 1 mask, 2 blend
uniform float u_cutoff;
uniform vec3 u_uv_u;            // texture transform rows: u' = dot(u_uv_u, (u, v, 1))
uniform vec3 u_uv_v;
uniform bool u_textured;
uniform sampler2D u_base;
uniform bool u_normal_mapped;
uniform float u_normal_scale;
uniform sampler2D u_normal_map;
uniform bool u_occluded;
uniform float u_occlusion_strength;
uniform sampler2D u_occlusion;
uniform bool u_mirror_sideways;  // the untextured built-in meshes' two-sided look
uniform float u_translucency;

out vec4 frag_color;

// Tangent frame from screen derivatives (no tangents in the vertex data): Mikkelsen's
// "normal mapping without precomputed tangents".
vec3 mapped_normal(vec3 n, vec2 uv) {
    vec3 dp1 = dFdx(v_world), dp2 = dFdy(v_world);
    vec2 du1 = dFdx(uv), du2 = dFdy(uv);
    vec3 dp2perp = cross(dp2, n), dp1perp = cross(n, dp1);
    vec3 t = dp2perp * du1.x + dp1perp * du2.x;
    vec3 b = dp2perp * du1.y + dp1perp * du2.y;
    float inv = inversesqrt(max(max(dot(t, t), dot(b, b)), 1e-20));
    vec3 m = texture(u_normal_map, uv).xyz * 2.0 - 1.0;
    m.xy *= u_normal_scale;
    return normalize(t * inv * m.x - b * inv * m.y + n * m.z);  // glTF's v runs down the image
}

void main() {
    if (dissolved(v_band)) discard;
    vec2 uv = vec2(dot(u_uv_u, vec3(v_uv, 1.0)), dot(u_uv_v, vec3(v_uv, 1.0)));
    vec4 texel = u_textured ? texture(u_base, uv) : vec4(1.0);
    float alpha = texel.a * u_base_factor.a;
    if (u_alpha_mode == 1 && alpha < u_cutoff) discard;
    if (u_alpha_mode == 2 && alpha < 0.004) discard;
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) {
        // Thin blades and open meshes are lit from either side: the built-in meshes mirror the
        // sideways part only, so a normal bent towards the sky stays up; a two-sided material's
        // back face is its front turned over.
        if (u_mirror_sideways) n.xz = -n.xz; else n = -n;
    }
    if (u_normal_mapped) n = mapped_normal(n, uv);
    vec3 colour = shifted_colour(v_color * texel.rgb, v_shift);
    if (u_occluded) colour *= mix(1.0, texture(u_occlusion, uv).r, u_occlusion_strength);
    frag_color = shade_with(colour, n, v_world, v_selected, u_translucency);
    if (u_alpha_mode == 2) frag_color.a = alpha;
}
