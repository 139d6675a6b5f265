#version 330 core
in vec3 v_normal;
in vec3 v_color;   // every layer's colour blended by weight (what untextured ground shows)
in vec3 v_world;
in vec4 v_w0;      // the textured layers' weights, slot by slot
in vec4 v_w1;
in vec4 v_w2;
in vec4 v_w3;
in vec3 v_macro;   // the macro variation's factor (terrain_vert.glsl)
in vec3 v_half;    // between the light and the eye, at the vertex

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
// Holes: one texel per height sample (255 a hole); a cell with a hole at any corner is not drawn.
uniform sampler2D u_holes;
uniform vec2 u_holes_origin;     // world x, z of sample (0, 0)
uniform float u_holes_spacing;   // metres between samples
uniform float u_holes_on;

// Textured layers: one array layer per slot in each map kind's array.
const int SLOTS = 16;
const int TOP = 2;               // textured layers sampled per fragment, the strongest
uniform int u_slots;             // textured layers (0: the flat colours only)
uniform sampler2DArray u_albedo;
uniform sampler2DArray u_normal;
uniform sampler2DArray u_roughness;
uniform sampler2DArray u_height;
uniform int u_maps[SLOTS];       // maps uploaded: 1 albedo, 2 normal, 4 roughness, 8 height
uniform vec3 u_color[SLOTS];     // the layer's colour (part of v_color)
uniform vec3 u_tint[SLOTS];      // colour / texture mean: the texture averages to the layer's colour
uniform float u_tiling[SLOTS];   // metres per repeat
uniform float u_triplanar[SLOTS];

// The base-colour cache (rendering.terrain_base_cache): each tile's blend baked top-down into a
// texture (albedo, roughness in alpha), drawn past the near radius instead of the per-layer blend.
uniform int u_bake;              // 1: this draw bakes a tile's cache (output: albedo, roughness)
uniform int u_cache_on;          // 1: this tile's cache is baked and current
uniform sampler2D u_cache;
uniform vec4 u_cache_rect;       // world x, z of the cache texture's corner and the metres it spans
uniform vec2 u_near;             // distance where the handover to the cache starts, and its width

const float FULL_COVER = 0.3;    // a cover share that already reads as forest from above
const float HEIGHT_DEPTH = 0.12; // weight band over which the higher texel wins (height blending)
const float STEEP_FROM = 0.85;   // normal.y where sideways projection starts (about 32 degrees) ...
const float STEEP_FULL = 0.70;   // ... and where it is full (about 46 degrees)
const float MIN_WEIGHT = 0.004;  // a slot weighing less is not sampled

out vec4 frag_color;

float slot_weight(int i) {
    vec4 w = i < 4 ? v_w0 : i < 8 ? v_w1 : i < 12 ? v_w2 : v_w3;
    int k = i - (i / 4) * 4;
    return k == 0 ? w.x : k == 1 ? w.y : k == 2 ? w.z : w.w;
}

// Projection weights (x, y, z): from above on gentle ground, from the three axes on steep ground
// (or always for a triplanar layer), so cliffs show the texture at its size instead of stretched.
vec3 projection(vec3 n, float triplanar) {
    vec3 a = pow(abs(n), vec3(4.0));
    a /= a.x + a.y + a.z;
    float side = max(triplanar, smoothstep(STEEP_FROM, STEEP_FULL, n.y));
    vec3 w = mix(vec3(0.0, 1.0, 0.0), a, side);
    return w * step(vec3(0.02), w) / max(dot(w * step(vec3(0.02), w), vec3(1.0)), 1e-4);
}

// One map of one slot, sampled by the projections; gradients from the whole quad's position, so
// mip selection holds inside the per-slot branches.
vec4 sample_map(sampler2DArray s, int slot, vec3 p, vec3 dpx, vec3 dpy, vec3 proj) {
    float k = 1.0 / u_tiling[slot];
    vec4 c = vec4(0.0);
    if (proj.y > 0.0) c += proj.y * textureGrad(s, vec3(p.xz * k, slot), dpx.xz * k, dpy.xz * k);
    if (proj.x > 0.0) c += proj.x * textureGrad(s, vec3(p.zy * k, slot), dpx.zy * k, dpy.zy * k);
    if (proj.z > 0.0) c += proj.z * textureGrad(s, vec3(p.xy * k, slot), dpx.xy * k, dpy.xy * k);
    return c;
}

// A normal map's tangent-space normal laid onto the surface per projection (UDN blend).
vec3 perturb(int slot, vec3 n, vec3 p, vec3 dpx, vec3 dpy, vec3 proj) {
    float k = 1.0 / u_tiling[slot];
    vec3 d = vec3(0.0);
    if (proj.y > 0.0) {
        vec2 t = textureGrad(u_normal, vec3(p.xz * k, slot), dpx.xz * k, dpy.xz * k).xy * 2.0 - 1.0;
        d += proj.y * vec3(t.x, 0.0, t.y);
    }
    if (proj.x > 0.0) {
        vec2 t = textureGrad(u_normal, vec3(p.zy * k, slot), dpx.zy * k, dpy.zy * k).xy * 2.0 - 1.0;
        d += proj.x * vec3(0.0, t.y, t.x);
    }
    if (proj.z > 0.0) {
        vec2 t = textureGrad(u_normal, vec3(p.xy * k, slot), dpx.xy * k, dpy.xy * k).xy * 2.0 - 1.0;
        d += proj.z * vec3(t.x, t.y, 0.0);
    }
    return d;
}

// The full per-layer blend: the TOP strongest textured layers, height-blended, over the flat colours.
void layer_blend(vec3 dpx, vec3 dpy, inout vec3 n, out vec3 albedo, out float roughness) {
    // The TOP strongest textured layers of this fragment are sampled, each a fixed number of
    // times whatever the slots (a loop over every slot with a branch per slot samples every
    // slot any neighbouring fragment needs); weaker ones join the flat colours (their tint).
    ivec3 top = ivec3(0);
    vec3 tw = vec3(0.0);
    for (int i = 0; i < u_slots; ++i) {
        float wi = slot_weight(i);
        if (wi > tw.z) {
            if (wi > tw.y) {
                tw.z = tw.y; top.z = top.y;
                if (wi > tw.x) { tw.y = tw.x; top.y = top.x; tw.x = wi; top.x = i; }
                else { tw.y = wi; top.y = i; }
            } else { tw.z = wi; top.z = i; }
        }
    }
    vec3 rest = v_color;     // the other layers' and bare ground's share of the colour
    float rest_w = 1.0;
    float w[TOP];
    float h[TOP];
    vec3 proj[TOP];
    bool heights = false;
    float highest = 0.0;
    for (int k = 0; k < TOP; ++k) {
        int i = top[k];
        w[k] = tw[k];
        rest -= w[k] * u_color[i];
        rest_w -= w[k];
        h[k] = 0.5;
        proj[k] = projection(n, u_triplanar[i]);
        if (w[k] > MIN_WEIGHT && (u_maps[i] & 8) != 0) {
            h[k] = sample_map(u_height, i, v_world, dpx, dpy, proj[k]).r;
            heights = true;
        }
        highest = max(highest, w[k] + h[k]);
    }
    rest_w = max(rest_w, 0.0);
    highest = max(highest, rest_w + 0.5);
    // Height blending: across a transition the higher texel wins, in a band HEIGHT_DEPTH wide.
    float b_rest = rest_w;
    float total = 0.0;
    for (int k = 0; k < TOP; ++k) {
        float b = w[k];
        if (heights) b = w[k] > MIN_WEIGHT ? max(w[k] + h[k] - highest + HEIGHT_DEPTH, 0.0) : 0.0;
        w[k] = b;
        total += b;
    }
    if (heights) b_rest = rest_w > MIN_WEIGHT ? max(rest_w + 0.5 - highest + HEIGHT_DEPTH, 0.0) : 0.0;
    total += b_rest;
    float scale = 1.0 / max(total, 1e-4);
    albedo = rest_w > MIN_WEIGHT ? rest * (b_rest * scale / rest_w) : vec3(0.0);
    vec3 bent = vec3(0.0);
    roughness = b_rest * scale;  // untextured ground is fully rough
    for (int k = 0; k < TOP; ++k) {
        float b = w[k] * scale;
        if (b <= MIN_WEIGHT) continue;
        int i = top[k];
        vec3 c = u_color[i];
        if ((u_maps[i] & 1) != 0) c = sample_map(u_albedo, i, v_world, dpx, dpy, proj[k]).rgb * u_tint[i];
        albedo += b * c;
        if ((u_maps[i] & 2) != 0) bent += b * perturb(i, n, v_world, dpx, dpy, proj[k]);
        roughness += b * ((u_maps[i] & 4) != 0 ? sample_map(u_roughness, i, v_world, dpx, dpy, proj[k]).r : 1.0);
    }
    n = normalize(n + bent);
}

// A per-pixel threshold in 0..1 (interleaved gradient noise): the handover between the full
// blend and the cache is a dither, so no line shows where one ends.
float dither() {
    return fract(52.9829189 * fract(dot(gl_FragCoord.xy, vec2(0.06711056, 0.00583715))));
}

void main() {
    if (u_holes_on > 0.5) {
        // the fragment's cell and its four corners, read exactly: a filtered read gave a few
        // thousandths near the corners opposite a hole sample, rounded to 0, and a sliver stayed
        ivec2 size = textureSize(u_holes, 0);
        ivec2 c = clamp(ivec2(floor((v_world.xz - u_holes_origin) / u_holes_spacing)), ivec2(0),
                        max(size - 2, ivec2(0)));
        ivec2 d = min(c + 1, size - 1);
        float hole = texelFetch(u_holes, c, 0).r + texelFetch(u_holes, ivec2(d.x, c.y), 0).r
                  + texelFetch(u_holes, ivec2(c.x, d.y), 0).r + texelFetch(u_holes, d, 0).r;
        if (hole > 0.0) discard;
    }
    vec3 n = normalize(v_normal);
#ifdef FAR_TILES
    vec3 albedo;
#else
    vec3 albedo = v_color;
#endif
    float roughness = 1.0;
    float dist = length(v_world - u_eye);
#if defined(FAR_TILES)
    // Tiles wholly past the handover (always textured): the cache alone. A software rasteriser runs
    // both sides of a branch, so neither the blend nor the flat colour is compiled in.
    vec4 c = texture(u_cache, (v_world.xz - u_cache_rect.xy) / u_cache_rect.zw);
    albedo = c.rgb * v_macro;
    roughness = c.a;
#elif !defined(FLAT_COLOURS)  // terrains without textured layers compile none of it
    if (u_slots > 0) {
        vec3 dpx = dFdx(v_world), dpy = dFdy(v_world);
        // Past the near radius the tile's baked base colour stands in for the blend: one fetch
        // (in uniform control flow: the quad's implicit derivatives choose the mip).
        bool cached = false;
        if (u_cache_on == 1 && u_bake == 0) {
            vec4 c = texture(u_cache, (v_world.xz - u_cache_rect.xy) / u_cache_rect.zw);
            // steep ground is blended in full: seen from above, the bake spreads a cliff's side thin
            cached = (dist - u_near.x) / u_near.y > dither() && n.y > STEEP_FROM;
            albedo = c.rgb;
            roughness = c.a;
        }
        if (!cached) {
            layer_blend(dpx, dpy, n, albedo, roughness);
        }
        if (u_bake == 1) {  // the cache holds the blend before lighting, macro variation and fog
            frag_color = vec4(albedo, roughness);
            return;
        }
        albedo *= v_macro;
    }
#endif
    float diffuse = max(dot(n, u_light_direction), 0.0);
    // Hemisphere ambient: sky from above, a darker bounce from below.
    float sky = 0.5 + 0.5 * n.y;
    vec3 ambient = mix(vec3(0.20, 0.19, 0.17), vec3(0.34, 0.37, 0.42), sky);
    vec3 light = ambient + vec3(1.0, 0.96, 0.88) * diffuse * 0.9;
    vec3 lit = albedo * light;
    if (roughness < 0.98) {  // smooth texels (wet rock, sand) catch a highlight
#ifdef FAR_TILES
        vec3 hv = v_half;  // far triangles are about a pixel: the vertices' half vector will do
#else
        vec3 hv = normalize(normalize(u_eye - v_world) + u_light_direction);
#endif
        float gloss = 1.0 - roughness;
        // x^k as e^(k (x - 1)): the same lobe about its peak for one exponential, not a log and an
        // exponential (what a software rasteriser pays for per pixel)
        float lobe = exp2(mix(8.0, 96.0, gloss) * 1.442695 * (max(dot(n, hv), 0.0) - 1.0));
        lit += vec3(1.0, 0.96, 0.88) * gloss * gloss * 0.35 * lobe * step(0.0, dot(n, u_light_direction));
    }
    if (u_density_on > 0.5) {
        // four bilinear taps half a texel off: a tent over 3 x 3 texels, a soft mass of forest
        // rather than one blot per tree
        vec2 uv = (v_world.xz - u_density_origin) / u_density_extent;
        vec2 t = 0.5 / vec2(textureSize(u_density, 0));
        vec4 cover = 0.25 * (texture(u_density, uv + t) + texture(u_density, uv - t)
                             + texture(u_density, uv + vec2(t.x, -t.y)) + texture(u_density, uv + vec2(-t.x, t.y)));
        float far = smoothstep(u_density_fade.x, u_density_fade.y, dist);
        // a little darker than the lit mesh colour: crowns seen from above shade each other
        lit = mix(lit, cover.rgb * 0.8 * light, clamp(cover.a / FULL_COVER, 0.0, 1.0) * far * 0.75);
    }
    float fog = clamp(dist / u_fog_distance, 0.0, 1.0);
    lit = mix(lit, u_fog_color, fog * fog * 0.6);
    frag_color = vec4(pow(lit, vec3(1.0 / 1.15)), 1.0);
}
