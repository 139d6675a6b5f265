#version 330 core
// One instanced mesh; each instance is a raw 28-byte foliage record: x y z yaw pitch roll scale.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
layout(location = 3) in vec3 i_position;
layout(location = 4) in vec4 i_rotation;  // yaw, pitch, roll (radians), scale
layout(location = 5) in float i_selected;  // 1.0 for a selected instance (a constant 0.0 without a mask)

uniform mat4 u_view_projection;
uniform vec3 u_eye;
uniform vec2 u_fade;  // distance where fading starts, and where the instance is gone

out vec3 v_normal;
out vec3 v_color;
out vec3 v_world;
out float v_fade;
out float v_selected;

// Intrinsic Y (yaw) → X (pitch) → Z (roll), as model.foliage.scatter.up_of; GLSL mat3 is by columns.
mat3 rotation(float yaw, float pitch, float roll) {
    float cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch), cr = cos(roll), sr = sin(roll);
    mat3 ry = mat3(cy, 0.0, -sy, 0.0, 1.0, 0.0, sy, 0.0, cy);
    mat3 rx = mat3(1.0, 0.0, 0.0, 0.0, cp, sp, 0.0, -sp, cp);
    mat3 rz = mat3(cr, sr, 0.0, -sr, cr, 0.0, 0.0, 0.0, 1.0);
    return ry * rx * rz;
}

void main() {
    float d = distance(u_eye, i_position);
    v_fade = 1.0 - smoothstep(u_fade.x, u_fade.y, d);
    v_selected = i_selected;
    if (v_fade <= 0.0) {  // beyond the cull distance: no triangle survives clipping
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        v_normal = vec3(0.0);
        v_color = vec3(0.0);
        v_world = vec3(0.0);
        return;
    }
    mat3 r = rotation(i_rotation.x, i_rotation.y, i_rotation.z);
    vec3 world = i_position + r * (a_position * i_rotation.w);
    v_normal = r * a_normal;
    v_color = a_color;
    v_world = world;
    gl_Position = u_view_projection * vec4(world, 1.0);
}
