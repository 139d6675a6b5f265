// The hemi-octahedral grid of baked impostor frames (rendering/impostors.py holds the numpy twin).
// A direction over the upper hemisphere (y >= 0, from the mesh towards the camera) maps to the
// square [-1, 1]²; frame (i, j) of an N × N grid was baked from the direction at grid point
// (i, j) / (N - 1) of that square, its corners and edges on the horizon, its middle straight above.

vec2 hemi_octahedral(vec3 d) {
    vec2 p = d.xz / (abs(d.x) + abs(d.y) + abs(d.z));
    return vec2(p.x + p.y, p.x - p.y);
}

vec3 hemi_direction(vec2 e) {
    vec2 p = 0.5 * vec2(e.x + e.y, e.x - e.y);
    return normalize(vec3(p.x, 1.0 - abs(p.x) - abs(p.y), p.y));
}

vec3 frame_direction(vec2 cell, int frames) {
    return hemi_direction(cell / float(frames - 1) * 2.0 - 1.0);
}

// The frame's image axes: right and up, right × up = d (not mirrored); straight above, up is -z.
mat2x3 frame_axes(vec3 d) {
    vec3 reference = abs(d.y) > 0.9999 ? vec3(0.0, 0.0, -1.0) : vec3(0.0, 1.0, 0.0);
    vec3 right = normalize(cross(reference, d));
    return mat2x3(right, cross(d, right));
}
