// (#version, foliage_common.glsl and foliage_shading.glsl are prepended by the renderer)
in vec2 v_uv;
in vec3 v_world;
in vec2 v_band;
in float v_selected;
in vec2 v_shift;
in float v_yaw;
in vec3 v_sprite;
uniform bool u_points;
uniform int u_views;

uniform sampler2D u_albedo;   // rgb: unlit colour, a: coverage
uniform sampler2D u_normals;  // rgb: the mesh's own-frame normal, 0.5 + 0.5 n

out vec4 frag_color;

void main() {
    if (dissolved(v_band)) discard;
    vec2 uv = v_uv;
    if (u_points) {  // where in the card this pixel of the square sprite falls
        vec2 c = vec2(gl_PointCoord.x, 1.0 - gl_PointCoord.y) - 0.5;
        vec2 card = vec2(c.x * v_sprite.y, c.y * v_sprite.z) + 0.5;
        if (any(lessThan(card, vec2(0.0))) || any(greaterThan(card, vec2(1.0)))) discard;
        uv = vec2((v_sprite.x + card.x) / float(u_views), card.y);
    }
    vec4 albedo = texture(u_albedo, uv);
    if (albedo.a < 0.5) discard;
    vec3 local = normalize(texture(u_normals, uv).xyz * 2.0 - 1.0);
    float cy = cos(v_yaw), sy = sin(v_yaw);
    vec3 n = vec3(cy * local.x + sy * local.z, local.y, -sy * local.x + cy * local.z);
    frag_color = shade(shifted_colour(albedo.rgb, v_shift), n, v_world, v_selected);
}
