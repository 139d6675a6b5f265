#version 330 core
// The derived grass shader's fragment stage (rendering/grass_renderer.py); stored foliage uses
// foliage_mesh_frag.glsl and foliage_shading.glsl, whose lighting this keeps in step with.
in vec3 v_normal;
in vec3 v_color;
in vec3 v_world;
in float v_fade;
in float v_selected;

uniform vec3 u_light_direction;
uniform vec3 u_eye;
uniform vec3 u_fog_color;
uniform float u_fog_distance;

const vec3 SELECTED_TINT = vec3(1.0, 0.74, 0.22);  // the selection's amber, as its markers

out vec4 frag_color;

// 4x4 ordered dither: fading instances dissolve pixel by pixel, no sorting or blending needed.
float bayer(vec2 p) {
    int x = int(mod(p.x, 4.0)), y = int(mod(p.y, 4.0));
    int m[16] = int[16](0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5);
    return (float(m[y * 4 + x]) + 0.5) / 16.0;
}

void main() {
    if (v_fade < bayer(gl_FragCoord.xy)) discard;
    vec3 n = normalize(v_normal);
    // Thin blades and open meshes are lit from either side: mirror the sideways part only, so a
    // normal bent towards the sky stays up.
    if (!gl_FrontFacing) n.xz = -n.xz;
    float diffuse = max(dot(n, u_light_direction), 0.0);
    float sky = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.20, 0.19, 0.17), vec3(0.34, 0.37, 0.42), sky);
    vec3 lit = v_color * (ambient + vec3(1.0, 0.96, 0.88) * diffuse * 0.9);
    if (v_selected > 0.5) {  // selected: warm tint, and a bright rim where the surface turns away
        vec3 view = normalize(u_eye - v_world);
        float rim = pow(1.0 - abs(dot(n, view)), 2.0);
        lit = mix(lit, SELECTED_TINT * (0.45 + 0.55 * diffuse), 0.55) + SELECTED_TINT * rim * 0.7;
    }
    float fog = clamp(length(v_world - u_eye) / u_fog_distance, 0.0, 1.0);
    lit = mix(lit, u_fog_color, fog * fog * 0.6);
    frag_color = vec4(pow(lit, vec3(1.0 / 1.15)), 1.0);
}
