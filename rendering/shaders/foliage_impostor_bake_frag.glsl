#version 330 core
in vec3 v_normal;
in vec3 v_color;
uniform float u_angle;
layout(location = 0) out vec4 albedo;
layout(location = 1) out vec4 normal;

void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n.xz = -n.xz;  // as the mesh shader lights open meshes
    albedo = vec4(v_color, 1.0);
    normal = vec4(n * 0.5 + 0.5, 1.0);
}
