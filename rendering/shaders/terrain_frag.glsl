#version 330 core
in vec3 v_normal;
in vec3 v_color;
in vec3 v_world;

uniform vec3 u_light_direction;  // towards the light
uniform vec3 u_eye;
uniform vec3 u_fog_color;
uniform float u_fog_distance;
// Stored foliage seen from afar (instances past their cull distance): the ground under it takes
// the foliage's colour (rgb) by its cover (a), fading in where the instances fade out.
uniform sampler2D u_density;
uniform vec2 u_density_origin;  // world x, z of the cover grid's corner
uniform vec2 u_density_extent;  // metres the grid spans along x, z
uniform vec2 u_density_fade;    // distances where the overlay starts and is full
uniform float u_density_on;

const float FULL_COVER = 0.3;   // a cover share that already reads as forest from above

out vec4 frag_color;

void main() {
    vec3 n = normalize(v_normal);
    float diffuse = max(dot(n, u_light_direction), 0.0);
    // Hemisphere ambient: sky from above, a darker bounce from below.
    float sky = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.20, 0.19, 0.17), vec3(0.34, 0.37, 0.42), sky);
    vec3 light = ambient + vec3(1.0, 0.96, 0.88) * diffuse * 0.9;
    vec3 lit = v_color * light;
    if (u_density_on > 0.5) {
        // four bilinear taps half a texel off: a tent over 3 x 3 texels, a soft mass of forest
        // rather than one blot per tree
        vec2 uv = (v_world.xz - u_density_origin) / u_density_extent;
        vec2 t = 0.5 / vec2(textureSize(u_density, 0));
        vec4 cover = 0.25 * (texture(u_density, uv + t) + texture(u_density, uv - t)
                             + texture(u_density, uv + vec2(t.x, -t.y)) + texture(u_density, uv + vec2(-t.x, t.y)));
        float far = smoothstep(u_density_fade.x, u_density_fade.y, length(v_world - u_eye));
        // a little darker than the lit mesh colour: crowns seen from above shade each other
        lit = mix(lit, cover.rgb * 0.8 * light, clamp(cover.a / FULL_COVER, 0.0, 1.0) * far * 0.75);
    }
    float fog = clamp(length(v_world - u_eye) / u_fog_distance, 0.0, 1.0);
    lit = mix(lit, u_fog_color, fog * fog * 0.6);
    frag_color = vec4(pow(lit, vec3(1.0 / 1.15)), 1.0);
}
