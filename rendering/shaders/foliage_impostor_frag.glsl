// (#version, foliage_common.glsl and foliage_shading.glsl are prepended by the renderer)
in vec2 v_uv;
in vec3 v_world;
in vec2 v_band;
in float v_selected;
in vec2 v_shift;
in float v_yaw;
in vec2 v_sprite;
flat in vec3 v_view;
flat in float v_solid;
uniform bool u_points;
uniform int u_views;

uniform sampler2D u_albedo;   // rgb: unlit colour, a: coverage
uniform sampler2D u_normals;  // rgb: the mesh's own-frame normal, 0.5 + 0.5 n

out vec4 frag_color;

void main() {
    if (dissolved(v_band)) discard;
    vec2 card = v_solid > 0.5 ? vec2(0.5) : v_uv;
    if (u_points && v_solid < 0.5) {  // where in the card this pixel of the square sprite falls
        vec2 c = vec2(gl_PointCoord.x, 1.0 - gl_PointCoord.y) - 0.5;
        card = vec2(c.x * v_sprite.x, c.y * v_sprite.y) + 0.5;
        if (any(lessThan(card, vec2(0.0))) || any(greaterThan(card, vec2(1.0)))) discard;
    }
    // between two baked views, a dither (offset from the levels' one) mixes them: no pop as
    // the camera circles
    float view = bayer(gl_FragCoord.xy + vec2(2.0, 1.0)) < v_view.z ? v_view.y : v_view.x;
    vec2 uv = vec2((view + card.x) / float(u_views), card.y);
    // the mip level follows the card, not the view switch (neighbouring pixels may read other views)
    vec2 scale = vec2(1.0 / float(u_views), 1.0);
    vec2 dx = dFdx(card) * scale, dy = dFdy(card) * scale;
    if (v_solid > 0.5) {  // a dot: the view's mean colour and normal
        dx = vec2(scale.x, 0.0);
        dy = vec2(0.0, 1.0);
    }
    vec4 albedo = textureGrad(u_albedo, uv, dx, dy);
    // a coarse mip's alpha is the share of the footprint covered: cut at 0.5 it would erase thin
    // crowns far away, so there a dither keeps that share of the pixels instead
    vec2 texels = vec2(textureSize(u_albedo, 0));
    float lod = 0.5 * log2(max(max(dot(dx * texels, dx * texels), dot(dy * texels, dy * texels)), 1e-8));
    float cut = mix(0.5, bayer(gl_FragCoord.xy + vec2(1.0, 3.0)), clamp(lod - 1.0, 0.0, 1.0));
    if (albedo.a < cut && v_solid < 0.5) discard;
    vec3 local = normalize(textureGrad(u_normals, uv, dx, dy).xyz * 2.0 - 1.0);
    float cy = cos(v_yaw), sy = sin(v_yaw);
    vec3 n = vec3(cy * local.x + sy * local.z, local.y, -sy * local.x + cy * local.z);
    frag_color = shade(shifted_colour(albedo.rgb, v_shift), n, v_world, v_selected);
}
