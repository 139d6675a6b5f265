// (#version and grass_common.glsl are prepended by the renderer)
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;

uniform mat4 u_view_projection;
uniform vec3 u_eye;
uniform vec2 u_fade;

out vec3 v_normal;
out vec3 v_color;
out vec3 v_world;
out float v_fade;
out float v_selected;  // derived grass is never selected

void main() {
    v_selected = 0.0;
    vec3 base;
    float yaw, scale;
    bool grows = grass_candidate(gl_InstanceID, base, yaw, scale);
    v_fade = grows ? 1.0 - smoothstep(u_fade.x, u_fade.y, distance(u_eye, base)) : 0.0;
    v_normal = vec3(0.0, 1.0, 0.0);
    v_color = a_color;
    v_world = base;
    if (v_fade <= 0.0) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // outside the clip volume: nothing drawn
        return;
    }
    float c = cos(yaw), s = sin(yaw);
    mat3 r = mat3(c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c);
    vec3 world = base + r * (a_position * scale);
    v_normal = r * a_normal;
    v_world = world;
    gl_Position = u_view_projection * vec4(world, 1.0);
}
