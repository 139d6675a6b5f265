#version 330 core
// One frame's texels: the material as the mesh shader reads it (texture, cut-out, normal map,
// occlusion), unlit; the lighting happens when the card is drawn, with the baked normal.
in vec3 v_normal;
in vec3 v_color;
in vec2 v_uv;
in vec3 v_local;
in float v_depth;
uniform bool u_textured;
uniform float u_cutoff;  // texels under it are cut (negative: nothing is)
uniform float u_base_alpha;
uniform vec3 u_uv_u;
uniform vec3 u_uv_v;
uniform sampler2D u_base;
uniform bool u_mirror_sideways;
uniform bool u_normal_mapped;
uniform float u_normal_scale;
uniform sampler2D u_normal_map;
uniform bool u_occluded;
uniform float u_occlusion_strength;
uniform float u_translucency;  // as the mesh shader's: a thin leaf's share of the sun let through
uniform sampler2D u_occlusion;
layout(location = 0) out vec4 albedo;  // rgb: unlit colour, a: coverage
layout(location = 1) out vec4 normal;  // rgb: the mesh's own-frame normal, a: translucency
layout(location = 2) out float depth;  // towards the camera: 0.5 at the centre, 1 the sphere's near side

// as foliage_mesh_frag.glsl: a tangent frame from screen derivatives
vec3 mapped_normal(vec3 n, vec2 uv) {
    vec3 dp1 = dFdx(v_local), dp2 = dFdy(v_local);
    vec2 du1 = dFdx(uv), du2 = dFdy(uv);
    vec3 dp2perp = cross(dp2, n), dp1perp = cross(n, dp1);
    vec3 t = dp2perp * du1.x + dp1perp * du2.x;
    vec3 b = dp2perp * du1.y + dp1perp * du2.y;
    float inv = inversesqrt(max(max(dot(t, t), dot(b, b)), 1e-20));
    vec3 m = texture(u_normal_map, uv).xyz * 2.0 - 1.0;
    m.xy *= u_normal_scale;
    return normalize(t * inv * m.x - b * inv * m.y + n * m.z);
}

void main() {
    vec2 uv = vec2(dot(u_uv_u, vec3(v_uv, 1.0)), dot(u_uv_v, vec3(v_uv, 1.0)));
    vec4 texel = u_textured ? texture(u_base, uv) : vec4(1.0);
    if (texel.a * u_base_alpha < u_cutoff) discard;
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) {  // as the mesh shader lights the back of open meshes
        if (u_mirror_sideways) n.xz = -n.xz; else n = -n;
    }
    if (u_normal_mapped) n = mapped_normal(n, uv);
    vec3 colour = v_color * texel.rgb;
    if (u_occluded) colour *= mix(1.0, texture(u_occlusion, uv).r, u_occlusion_strength);
    albedo = vec4(colour, 1.0);
    normal = vec4(n * 0.5 + 0.5, u_translucency);
    depth = clamp(v_depth, 0.0, 1.0);
}
