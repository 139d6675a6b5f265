// Derived grass scatter: the GLSL twin of model/foliage/derived_grass.py (keep them in step).
// Candidate `id` of the tile block starting at u_tile0, u_tiles_x tiles wide, u_per_tile per tile.

uniform uint u_type_base;     // pcg(pcg(seed) ^ type_key)
uniform int u_per_tile;
uniform int u_tile_cells;     // TILE_CELLS
uniform ivec2 u_tile0;
uniform int u_tiles_x;
uniform vec2 u_origin;        // terrain origin x, z
uniform float u_spacing;
uniform ivec2 u_grid;         // columns, rows
uniform uint u_min_weight;    // 0..255
uniform bool u_has_layer;
uniform vec2 u_yaw;           // degrees [min, max]
uniform vec2 u_scale;
uniform sampler2D u_heights;  // R32F, texel (column, row)
uniform usampler2D u_weights; // R8UI, the type's layer
uniform bool u_has_holes;
uniform usampler2D u_holes;   // R8UI, the hole mask (255 a hole), the same window
uniform ivec2 u_texel0;       // grid (column, row) of both textures' texel (0, 0): they hold a window

uint pcg(uint v) {
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

float draw(uint h, uint channel) {
    return float(pcg(h ^ channel) >> 8u) * (1.0 / 16777216.0);
}

float terrain_height(float u, float v) {
    int i0 = min(int(floor(u)), u_grid.x - 2);
    int j0 = min(int(floor(v)), u_grid.y - 2);
    float fu = u - float(i0), fv = v - float(j0);
    ivec2 t = ivec2(i0, j0) - u_texel0;
    float h00 = texelFetch(u_heights, t, 0).r;
    float h10 = texelFetch(u_heights, t + ivec2(1, 0), 0).r;
    float h01 = texelFetch(u_heights, t + ivec2(0, 1), 0).r;
    float h11 = texelFetch(u_heights, t + ivec2(1, 1), 0).r;
    return h00 * (1.0 - fu) * (1.0 - fv) + h10 * fu * (1.0 - fv) + h01 * (1.0 - fu) * fv + h11 * fu * fv;
}

// True where candidate `id` grows; then its world position, yaw (radians) and scale.
bool grass_candidate(int id, out vec3 position, out float yaw, out float scale) {
    position = vec3(0.0);
    yaw = 0.0;
    scale = 0.0;
    int tile = id / u_per_tile;
    int i = id - tile * u_per_tile;
    int tx = u_tile0.x + tile % u_tiles_x;
    int tz = u_tile0.y + tile / u_tiles_x;
    uint stamp = pcg(uint(tx) ^ pcg(uint(tz)));
    uint h = pcg(pcg(u_type_base ^ stamp) ^ uint(i));
    uint kx = pcg(h ^ 0u) >> 8u;        // Channel.X
    uint kz = pcg(h ^ 1u) >> 8u;        // Channel.Z
    uint cells = uint(u_tile_cells);
    int col = tx * u_tile_cells + int((cells * kx + 8388608u) >> 24u);
    int row = tz * u_tile_cells + int((cells * kz + 8388608u) >> 24u);
    float u = float(tx * u_tile_cells) + float(cells) * (float(kx) * (1.0 / 16777216.0));
    float v = float(tz * u_tile_cells) + float(cells) * (float(kz) * (1.0 / 16777216.0));
    if (u > float(u_grid.x - 1) || v > float(u_grid.y - 1) || col >= u_grid.x || row >= u_grid.y) return false;
    if (u_has_holes) {  // nothing grows in a cell with a hole at any corner
        ivec2 c = ivec2(min(tx * u_tile_cells + int((cells * kx) >> 24u), u_grid.x - 2),
                        min(tz * u_tile_cells + int((cells * kz) >> 24u), u_grid.y - 2)) - u_texel0;
        uint any = texelFetch(u_holes, c, 0).r | texelFetch(u_holes, c + ivec2(1, 0), 0).r
                 | texelFetch(u_holes, c + ivec2(0, 1), 0).r | texelFetch(u_holes, c + ivec2(1, 1), 0).r;
        if (any != 0u) return false;
    }
    uint weight = u_has_layer ? texelFetch(u_weights, ivec2(col, row) - u_texel0, 0).r : 255u;
    if (weight < u_min_weight) return false;
    uint thin = pcg(h ^ 7u) >> 8u;      // Channel.THIN
    if (thin * 255u >= weight * 16777216u) return false;
    position = vec3(u_origin.x + u_spacing * u, terrain_height(u, v), u_origin.y + u_spacing * v);
    yaw = radians(mix(u_yaw.x, u_yaw.y, draw(h, 2u)));    // Channel.YAW
    scale = mix(u_scale.x, u_scale.y, draw(h, 5u));       // Channel.SCALE
    return true;
}
