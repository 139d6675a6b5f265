#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;

uniform mat4 u_view_projection;
// A tile's vertices past its grid are its skirt: copies of its edges, hung this far down so a
// coarser neighbour's edge never leaves a gap.
uniform int u_grid_vertices;
uniform float u_skirt_depth;

out vec3 v_normal;
out vec3 v_color;
out vec3 v_world;

void main() {
    vec3 p = a_position;
    if (gl_VertexID >= u_grid_vertices) p.y -= u_skirt_depth;
    v_normal = a_normal;
    v_color = a_color;
    v_world = p;
    gl_Position = u_view_projection * vec4(p, 1.0);
}
