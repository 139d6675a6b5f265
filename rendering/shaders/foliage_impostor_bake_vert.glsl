// (#version and foliage_octahedral.glsl are prepended by the baker)
// One frame of the hemi-octahedral atlas: the mesh seen along the frame's direction, orthographic,
// the bounding sphere filling the frame.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
layout(location = 6) in vec2 a_uv;

uniform vec2 u_frame;   // the frame's cell in the grid
uniform int u_frames;   // frames along a side
uniform vec4 u_sphere;  // centre and half side of the frame (metres, the mesh's frame)

out vec3 v_normal;
out vec3 v_color;
out vec2 v_uv;
out vec3 v_local;
out float v_depth;

void main() {
    vec3 d = frame_direction(u_frame, u_frames);
    mat2x3 axes = frame_axes(d);
    vec3 p = (a_position - u_sphere.xyz) / u_sphere.w;
    float z = dot(p, d);  // towards the camera
    v_normal = a_normal;
    v_color = a_color;
    v_uv = a_uv;
    v_local = a_position;
    v_depth = 0.5 + 0.5 * z;
    gl_Position = vec4(dot(p, axes[0]), dot(p, axes[1]), -z, 1.0);
}
