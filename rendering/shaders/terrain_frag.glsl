#version 330 core
in vec3 v_normal;
in vec3 v_color;
in vec3 v_world;

uniform vec3 u_light_direction;  // towards the light
uniform vec3 u_eye;
uniform vec3 u_fog_color;
uniform float u_fog_distance;

out vec4 frag_color;

void main() {
    vec3 n = normalize(v_normal);
    float diffuse = max(dot(n, u_light_direction), 0.0);
    // Hemisphere ambient: sky from above, a darker bounce from below.
    float sky = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.20, 0.19, 0.17), vec3(0.34, 0.37, 0.42), sky);
    vec3 lit = v_color * (ambient + vec3(1.0, 0.96, 0.88) * diffuse * 0.9);
    float fog = clamp(length(v_world - u_eye) / u_fog_distance, 0.0, 1.0);
    lit = mix(lit, u_fog_color, fog * fog * 0.6);
    frag_color = vec4(pow(lit, vec3(1.0 / 1.15)), 1.0);
}
