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

out vec3 v_normal;
out vec3 v_color;
out vec3 v_world;
out vec4 v_w0;
out vec4 v_w1;
out vec4 v_w2;
out vec4 v_w3;

void main() {
    vec3 p = a_position;
    if (gl_VertexID >= u_grid_vertices) p.y -= u_skirt_depth;
    v_normal = a_normal;
    v_color = a_color;
    v_world = p;
    v_w0 = a_w0;
    v_w1 = a_w1;
    v_w2 = a_w2;
    v_w3 = a_w3;
    gl_Position = u_view_projection * vec4(p, 1.0);
}
