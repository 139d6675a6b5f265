// (#version and foliage_common.glsl are prepended by the renderer)
// One point per instance record, captured by transform feedback: the GPU side of the CPU comparison.
layout(location = 3) in vec3 i_position;
flat out int f_variant;
out vec2 f_shift;

void main() {
    uint h = instance_hash(i_position);
    f_variant = variant_of(h);
    f_shift = colour_shift(h);
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
}
