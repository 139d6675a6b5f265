// The derived grass shader's fragment stage (rendering/grass_renderer.py), lit by the stored
// foliage's own code (foliage_shading.glsl, prepended with #version by the renderer).
in vec3 v_normal;
in vec3 v_color;
in vec3 v_world;
in float v_fade;
in float v_selected;

out vec4 frag_color;

void main() {
    if (v_fade < bayer(gl_FragCoord.xy)) discard;
    vec3 n = normalize(v_normal);
    // Thin blades and open meshes are lit from either side: mirror the sideways part only, so a
    // normal bent towards the sky stays up.
    if (!gl_FrontFacing) n.xz = -n.xz;
    frag_color = shade(v_color, n, v_world, v_selected);
}
