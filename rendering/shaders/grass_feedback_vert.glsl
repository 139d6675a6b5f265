// (#version and grass_common.glsl are prepended by the renderer)
// One point per candidate, captured by transform feedback: the GPU side of the CPU comparison.
flat out uint f_grows;
out vec4 f_placed;  // x, y, z, yaw
out float f_scale;

void main() {
    vec3 p;
    float yaw, scale;
    f_grows = grass_candidate(gl_VertexID, p, yaw, scale) ? 1u : 0u;
    f_placed = vec4(p, yaw);
    f_scale = scale;
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
}
