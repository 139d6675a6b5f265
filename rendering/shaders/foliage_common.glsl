// Per-instance variation of stored foliage, from the record's own position bits.
// CPU twin: model/foliage/variants.py (keep in step). #version is prepended by the renderer.
uniform uint u_type_salt;         // pcg(type_key(name)): position_hashes' seed term
uniform int u_variant_count;      // 1: every instance draws the one mesh
uniform uint u_thresholds[8];     // variant_thresholds(weights), 24-bit cumulative
uniform vec2 u_hue;               // [min, max] degrees
uniform vec2 u_value;             // [min, max] brightness change

uint pcg(uint v) {                // PCG-RXS-M-XS, as model.foliage.hashing.pcg
    uint state = v * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

uint instance_hash(vec3 position) {
    return pcg(pcg(floatBitsToUint(position.x) ^ u_type_salt) ^ floatBitsToUint(position.z));
}

int variant_of(uint h) {
    if (u_variant_count <= 1) return 0;
    uint u = pcg(h ^ 256u) >> 8u;  // VARIANT_CHANNEL
    int index = 0;
    for (int i = 0; i < u_variant_count - 1; ++i) {
        if (u >= u_thresholds[i]) index = i + 1;
    }
    return index;
}

vec2 colour_shift(uint h) {       // hue degrees, value change
    float uh = float(pcg(h ^ 257u) >> 8u) * (1.0 / 16777216.0);
    float uv = float(pcg(h ^ 258u) >> 8u) * (1.0 / 16777216.0);
    return vec2(u_hue.x + (u_hue.y - u_hue.x) * uh, u_value.x + (u_value.y - u_value.x) * uv);
}

vec3 shifted_colour(vec3 rgb, vec2 shift) {
    float a = radians(shift.x);
    vec3 k = vec3(0.57735027);
    vec3 r = rgb * cos(a) + cross(k, rgb) * sin(a) + k * dot(rgb, k) * (1.0 - cos(a));
    return clamp(r * (1.0 + shift.y), 0.0, 1.0);
}

// Intrinsic Y (yaw) → X (pitch) → Z (roll), as model.foliage.scatter.up_of; GLSL mat3 is by columns.
mat3 rotation(float yaw, float pitch, float roll) {
    float cy = cos(yaw), sy = sin(yaw), cp = cos(pitch), sp = sin(pitch), cr = cos(roll), sr = sin(roll);
    mat3 ry = mat3(cy, 0.0, -sy, 0.0, 1.0, 0.0, sy, 0.0, cy);
    mat3 rx = mat3(1.0, 0.0, 0.0, 0.0, cp, sp, 0.0, -sp, cp);
    mat3 rz = mat3(cr, sr, 0.0, -sr, cr, 0.0, 0.0, 0.0, 1.0);
    return ry * rx * rz;
}
