#version 330 core
// One view of the ring: the mesh seen from direction u_angle about its up axis, orthographic.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_color;
layout(location = 6) in vec2 a_uv;

uniform float u_angle;
uniform vec3 u_card;  // half width, bottom, top

out vec3 v_normal;
out vec3 v_color;
out vec2 v_uv;

void main() {
    vec3 right = vec3(cos(u_angle), 0.0, -sin(u_angle));
    vec3 toward = vec3(sin(u_angle), 0.0, cos(u_angle));  // from the mesh towards the camera
    float x = dot(a_position, right) / u_card.x;
    float y = (a_position.y - u_card.y) / (u_card.z - u_card.y) * 2.0 - 1.0;
    float z = -dot(a_position, toward) / (u_card.x * 1.01);
    v_normal = a_normal;
    v_color = a_color;
    v_uv = a_uv;
    gl_Position = vec4(x, y, z, 1.0);
}
