// Lighting shared by the foliage meshes and their impostors, so the two match at the hand-over.
// (#version is prepended by the renderer)
uniform vec3 u_light_direction;
uniform vec3 u_eye;
uniform vec3 u_fog_color;
uniform float u_fog_distance;

const vec3 SELECTED_TINT = vec3(1.0, 0.74, 0.22);  // the selection's amber, as its markers

// 4x4 ordered dither: fading instances dissolve pixel by pixel, no sorting or blending needed;
// a level dissolving out keeps exactly the pixels the next level dissolving in drops.
float bayer(vec2 p) {
    int x = int(mod(p.x, 4.0)), y = int(mod(p.y, 4.0));
    int m[16] = int[16](0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5);
    return (float(m[y * 4 + x]) + 0.5) / 16.0;
}

bool dissolved(vec2 band) {
    float b = bayer(gl_FragCoord.xy);
    return band.x < b || band.y >= b;
}

// `translucency`: the share of the sun a thin leaf lets through to its shadowed side, strongest
// looking into the light (a cheap stand-in for subsurface scattering).
vec4 shade_with(vec3 colour, vec3 n, vec3 world, float selected, float translucency) {
    float diffuse = max(dot(n, u_light_direction), 0.0);
    float sky = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.20, 0.19, 0.17), vec3(0.34, 0.37, 0.42), sky);
    vec3 lit = colour * (ambient + vec3(1.0, 0.96, 0.88) * diffuse * 0.9);
    if (translucency > 0.0) {
        float through = max(dot(-n, u_light_direction), 0.0);
        float towards = 0.5 + 0.5 * max(dot(normalize(world - u_eye), u_light_direction), 0.0);
        lit += colour * vec3(0.9, 1.0, 0.6) * through * towards * translucency;
    }
    if (selected > 0.5) {  // selected: warm tint, and a bright rim where the surface turns away
        vec3 view = normalize(u_eye - world);
        float rim = pow(1.0 - abs(dot(n, view)), 2.0);
        lit = mix(lit, SELECTED_TINT * (0.45 + 0.55 * diffuse), 0.55) + SELECTED_TINT * rim * 0.7;
    }
    float fog = clamp(length(world - u_eye) / u_fog_distance, 0.0, 1.0);
    lit = mix(lit, u_fog_color, fog * fog * 0.6);
    return vec4(pow(lit, vec3(1.0 / 1.15)), 1.0);
}

vec4 shade(vec3 colour, vec3 n, vec3 world, float selected) {
    return shade_with(colour, n, world, selected, 0.0);
}
