"""View-frustum planes and vectorised box tests. Numpy only, so tests need no GL."""

from __future__ import annotations

import numpy as np


def frustum_planes(view_projection: np.ndarray) -> np.ndarray:
    """(6, 4) planes (a, b, c, d), inside where a x + b y + c z + d >= 0, normalised.

    Row-major clip = M @ p (Gribb & Hartmann): left, right, bottom, top, near, far.
    """
    m = np.asarray(view_projection, np.float64)
    r0, r1, r2, r3 = m
    planes = np.stack([r3 + r0, r3 - r0, r3 + r1, r3 - r1, r3 + r2, r3 - r2])
    norms = np.linalg.norm(planes[:, :3], axis=1, keepdims=True)
    return planes / np.where(norms > 0, norms, 1.0)


def boxes_in_frustum(lo: np.ndarray, hi: np.ndarray, planes: np.ndarray) -> np.ndarray:
    """True for each box (lo, hi: (n, 3)) not wholly outside any plane."""
    lo = np.asarray(lo, np.float64).reshape(-1, 3)
    hi = np.asarray(hi, np.float64).reshape(-1, 3)
    inside = np.ones(len(lo), bool)
    for a, b, c, d in np.asarray(planes, np.float64).reshape(-1, 4):
        # the corner furthest along the plane normal decides
        px = hi[:, 0] if a >= 0 else lo[:, 0]
        py = hi[:, 1] if b >= 0 else lo[:, 1]
        pz = hi[:, 2] if c >= 0 else lo[:, 2]
        inside &= a * px + b * py + c * pz + d >= 0
    return inside


def box_distance(lo: np.ndarray, hi: np.ndarray, point) -> np.ndarray:
    """Distance from `point` to the nearest point of each box (0 inside)."""
    p = np.asarray(point, np.float64).reshape(1, 3)
    gap = np.maximum(np.maximum(np.asarray(lo, np.float64) - p, p - np.asarray(hi, np.float64)), 0.0)
    return np.sqrt(np.einsum("ij,ij->i", gap, gap))


def box_far_distance(lo: np.ndarray, hi: np.ndarray, point) -> np.ndarray:
    """Distance from `point` to the furthest corner of each box."""
    p = np.asarray(point, np.float64).reshape(1, 3)
    gap = np.maximum(np.abs(lo - p), np.abs(hi - p))
    return np.sqrt(np.einsum("ij,ij->i", gap, gap))
