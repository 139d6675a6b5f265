#version 330 core
in vec3 v_normal;
in vec3 v_color;
in vec2 v_uv;
uniform float u_angle;
uniform bool u_textured;
uniform float u_cutoff;  // texels under it are cut (negative: nothing is)
uniform vec3 u_uv_u;
uniform vec3 u_uv_v;
uniform sampler2D u_base;
layout(location = 0) out vec4 albedo;
layout(location = 1) out vec4 normal;

void main() {
    vec4 texel = vec4(1.0);
    if (u_textured) {
        vec2 uv = vec2(dot(u_uv_u, vec3(v_uv, 1.0)), dot(u_uv_v, vec3(v_uv, 1.0)));
        texel = texture(u_base, uv);
    }
    if (texel.a < u_cutoff) discard;
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n.xz = -n.xz;  // as the mesh shader lights open meshes
    albedo = vec4(v_color * texel.rgb, 1.0);
    normal = vec4(n * 0.5 + 0.5, 1.0);
}
