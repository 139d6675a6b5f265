"""Target engines' axes, handedness and units, and the conversion of records to their transforms.

The scene frame is right-handed, +Y up, metres — the same as glTF 2.0. A record's rotation is
intrinsic Y (yaw) → X (pitch) → Z (roll), so its matrix is R = Ry · Rx · Rz, as the renderer does.
A target frame is reached by an orthonormal basis change M (det −1 flips handedness):
positions p' = s·M·p, rotations R' = M·R·Mᵀ (still a proper rotation), scale unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model import portable_math as pmath

UP_AXES = ("y", "z")
HANDEDNESS = ("right", "left")
UNITS = {"m": 1.0, "cm": 100.0}

# Scene (x, y, z) → target coordinates, one row per target axis.
_BASES = {
    ("y", "right"): ((1, 0, 0), (0, 1, 0), (0, 0, 1)),   # glTF, Godot, Houdini: as is
    ("y", "left"): ((-1, 0, 0), (0, 1, 0), (0, 0, 1)),   # Unity: mirror X, so +Z stays forward
    ("z", "right"): ((1, 0, 0), (0, 0, -1), (0, 1, 0)),  # Blender, USD Z-up: +90° about X
    ("z", "left"): ((1, 0, 0), (0, 0, 1), (0, 1, 0)),    # Unreal: swap Y and Z
}


@dataclass(frozen=True)
class Conventions:
    """How a target engine lays out space: which axis is up, its handedness and its unit."""

    up: str = "y"
    handedness: str = "right"
    units: str = "m"

    def __post_init__(self) -> None:
        if self.up not in UP_AXES:
            raise ValueError(f"up axis must be one of {', '.join(UP_AXES)}, not {self.up!r}")
        if self.handedness not in HANDEDNESS:
            raise ValueError(f"handedness must be 'right' or 'left', not {self.handedness!r}")
        if self.units not in UNITS:
            raise ValueError(f"units must be one of {', '.join(UNITS)}, not {self.units!r}")

    @property
    def basis(self) -> np.ndarray:
        """3×3 matrix taking scene coordinates to target coordinates (orthonormal)."""
        return np.array(_BASES[(self.up, self.handedness)], dtype=np.float64)

    @property
    def unit_scale(self) -> float:
        """Target units per metre."""
        return UNITS[self.units]

    @property
    def is_identity(self) -> bool:
        return self == Conventions()


# What each engine expects of imported data (the README's "Into your engine" table).
ENGINE_PRESETS: dict[str, Conventions] = {
    "glTF": Conventions("y", "right", "m"),
    "Godot": Conventions("y", "right", "m"),
    "Houdini": Conventions("y", "right", "m"),
    "Unity": Conventions("y", "left", "m"),
    "Blender": Conventions("z", "right", "m"),
    "Omniverse": Conventions("z", "right", "m"),
    "Unreal": Conventions("z", "left", "cm"),
}


def rotation_matrices(records: np.ndarray) -> np.ndarray:
    """(n, 3, 3) float64 rotation R = Ry(yaw) · Rx(pitch) · Rz(roll) of each record."""
    r = np.asarray(records, np.float64).reshape(-1, 7)
    cy, sy = pmath.cos(r[:, 3]), pmath.sin(r[:, 3])
    cp, sp = pmath.cos(r[:, 4]), pmath.sin(r[:, 4])
    cr, sr = pmath.cos(r[:, 5]), pmath.sin(r[:, 5])
    m = np.empty((len(r), 3, 3))
    m[:, 0, 0] = cy * cr + sy * sp * sr
    m[:, 0, 1] = -cy * sr + sy * sp * cr
    m[:, 0, 2] = sy * cp
    m[:, 1, 0] = cp * sr
    m[:, 1, 1] = cp * cr
    m[:, 1, 2] = -sp
    m[:, 2, 0] = -sy * cr + cy * sp * sr
    m[:, 2, 1] = sy * sr + cy * sp * cr
    m[:, 2, 2] = cy * cp
    return m


def yaw_pitch_roll(matrices: np.ndarray) -> np.ndarray:
    """(n, 3) yaw, pitch, roll (radians) of rotation matrices R = Ry · Rx · Rz."""
    m = np.asarray(matrices, np.float64).reshape(-1, 3, 3)
    pitch = pmath.arcsin(np.clip(-m[:, 1, 2], -1.0, 1.0))
    gimbal = pmath.hypot(m[:, 1, 0], m[:, 1, 1]) < 1e-9  # pitch ±90°: only yaw ± roll is defined
    yaw = np.where(gimbal, pmath.arctan2(-m[:, 2, 0], m[:, 0, 0]), pmath.arctan2(m[:, 0, 2], m[:, 2, 2]))
    roll = np.where(gimbal, 0.0, pmath.arctan2(m[:, 1, 0], m[:, 1, 1]))
    return np.stack([yaw, pitch, roll], axis=-1)


def quaternions(matrices: np.ndarray) -> np.ndarray:
    """(n, 4) unit quaternions (x, y, z, w), w ≥ 0, of rotation matrices (Shepperd's method)."""
    m = np.asarray(matrices, np.float64).reshape(-1, 3, 3)
    t = np.stack([m[:, 0, 0] + m[:, 1, 1] + m[:, 2, 2], m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]], axis=-1)
    pick = np.argmax(t, axis=1)  # the largest of w, x, y, z keeps the division well conditioned
    q = np.empty((len(m), 4))
    for case in range(4):
        s = pick == case
        if not s.any():
            continue
        a = m[s]
        if case == 0:
            w = np.sqrt(np.maximum(1.0 + t[s, 0], 0.0)) / 2.0
            q[s] = np.stack([(a[:, 2, 1] - a[:, 1, 2]) / (4 * w), (a[:, 0, 2] - a[:, 2, 0]) / (4 * w),
                             (a[:, 1, 0] - a[:, 0, 1]) / (4 * w), w], axis=-1)
        else:
            i = case - 1
            j, k = (i + 1) % 3, (i + 2) % 3
            v = np.sqrt(np.maximum(1.0 + 2.0 * a[:, i, i] - t[s, 0], 0.0)) / 2.0
            out = np.empty((len(a), 4))
            out[:, i] = v
            out[:, j] = (a[:, j, i] + a[:, i, j]) / (4 * v)
            out[:, k] = (a[:, k, i] + a[:, i, k]) / (4 * v)
            out[:, 3] = (a[:, k, j] - a[:, j, k]) / (4 * v)
            q[s] = out
    q *= np.where(q[:, 3:4] < 0, -1.0, 1.0)
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def quaternion_matrices(quats: np.ndarray) -> np.ndarray:
    """(n, 3, 3) rotation matrices of quaternions (x, y, z, w); normalised first."""
    q = np.asarray(quats, np.float64).reshape(-1, 4)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    m = np.empty((len(q), 3, 3))
    m[:, 0, 0] = 1 - 2 * (y * y + z * z)
    m[:, 0, 1] = 2 * (x * y - z * w)
    m[:, 0, 2] = 2 * (x * z + y * w)
    m[:, 1, 0] = 2 * (x * y + z * w)
    m[:, 1, 1] = 1 - 2 * (x * x + z * z)
    m[:, 1, 2] = 2 * (y * z - x * w)
    m[:, 2, 0] = 2 * (x * z - y * w)
    m[:, 2, 1] = 2 * (y * z + x * w)
    m[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return m


@dataclass(frozen=True)
class Transforms:
    """Instances in a target frame: positions (n, 3), quaternions (n, 4) x y z w, scales (n,)."""

    positions: np.ndarray
    rotations: np.ndarray
    scales: np.ndarray

    def matrices(self) -> np.ndarray:
        """(n, 4, 4) column-vector transforms T · R · S."""
        n = len(self.scales)
        out = np.zeros((n, 4, 4))
        out[:, :3, :3] = quaternion_matrices(self.rotations) * self.scales[:, None, None]
        out[:, :3, 3] = self.positions
        out[:, 3, 3] = 1.0
        return out


def record_quaternions(records: np.ndarray, conventions: Conventions = Conventions(),
                       single: bool = False) -> np.ndarray:
    """(n, 4) unit quaternions (x, y, z, w), w ≥ 0, of the records' rotations in the target frame;
    see `angle_quaternions`."""
    r = np.asarray(records, np.float32).reshape(-1, 7)
    return angle_quaternions(r[:, 3:6], conventions, single)


def angle_quaternions(angles: np.ndarray, conventions: Conventions = Conventions(),
                      single: bool = False, out: np.ndarray | None = None) -> np.ndarray:
    """(n, 4) unit quaternions (x, y, z, w), w ≥ 0, of (n, 3) yaw, pitch, roll in the target frame,
    in closed form: q = q_yaw ⊗ q_pitch ⊗ q_roll, then the basis change M·R·Mᵀ, which for an
    orthonormal M turns (v, w) into (det(M)·M·v, w). Same as `quaternions(M · R · Mᵀ)`, without
    building matrices (a million instances in a few numpy passes). `single` computes in float32
    (several times faster; within a few float32 ulps, for writers that store float32); `out`, an
    (n, 4) array (a column slice of a wider one is fine), receives the result."""
    dtype = np.float32 if single else np.float64
    a = np.asarray(angles).reshape(-1, 3)
    half = np.empty((3, len(a)), dtype)
    np.multiply(a.T, dtype(0.5), out=half, casting="unsafe" if a.dtype != dtype else "same_kind")  # exact
    c, s = pmath.cos(half), pmath.sin(half)
    (cy, cx, cz), (sy, sx, sz) = c, s
    # the four products, in the rows of `half` and one more (no temporaries per term)
    cycx, sysx = np.multiply(cy, cx, out=half[0]), np.multiply(sy, sx, out=half[1])
    cysx, sycx = np.multiply(cy, sx, out=half[2]), sy * cx
    w = cycx * cz
    w += sysx * sz
    sign = np.where(w < 0, dtype(-1), dtype(1))  # w ≥ 0: one of the two equal quaternions
    x = cysx * cz
    x += sycx * sz
    y = np.multiply(sycx, cz, out=sy)  # sy is no longer needed
    y -= cysx * sz
    z = np.multiply(cycx, sz, out=cx)  # nor cx
    z -= sysx * cz
    q = np.empty((len(w), 4), dtype) if out is None else out
    if conventions.is_identity:
        for i, v in enumerate((x, y, z)):
            np.multiply(v, sign, out=q[:, i])
    else:
        v = (x * sign, y * sign, z * sign)
        m = conventions.basis * np.linalg.det(conventions.basis)
        for i in range(3):
            q[:, i] = sum(v[j] * dtype(m[i, j]) for j in range(3) if m[i, j])
    np.multiply(w, sign, out=q[:, 3])
    return q


def to_target(records: np.ndarray, conventions: Conventions = Conventions()) -> Transforms:
    """Records (n, 7) in the scene frame → transforms in the target frame (float64)."""
    r = np.asarray(records, np.float32).reshape(-1, 7)
    return Transforms(target_positions(r[:, :3], conventions), record_quaternions(r, conventions),
                      r[:, 6].astype(np.float64))


def target_positions(positions: np.ndarray, conventions: Conventions = Conventions()) -> np.ndarray:
    """(n, 3) scene positions → float64 target positions s·M·p."""
    p = np.asarray(positions).reshape(-1, 3).astype(np.float64)
    if conventions.is_identity:
        return p
    # M is a signed permutation: column picks, not an (n, 3) @ (3, 3) product (slow for inner size 3)
    m = conventions.basis
    return np.stack([sum(p[:, j] * m[i, j] for j in range(3) if m[i, j]) for i in range(3)],
                    axis=1) * conventions.unit_scale


def from_target(positions: np.ndarray, rotations: np.ndarray, scales: np.ndarray,
                conventions: Conventions = Conventions()) -> np.ndarray:
    """Transforms in the target frame (quaternions x y z w) → records (n, 7) float32 in the scene."""
    m = conventions.basis
    p = np.asarray(positions, np.float64).reshape(-1, 3) / conventions.unit_scale @ m
    rot = m.T @ quaternion_matrices(rotations) @ m
    out = np.empty((len(p), 7), np.float32)
    out[:, :3] = p
    out[:, 3:6] = yaw_pitch_roll(rot)
    out[:, 6] = np.asarray(scales, np.float64).reshape(-1)
    return out
