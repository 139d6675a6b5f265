"""An orbit camera: a target point, a distance, yaw and pitch. Pure numpy, so tests need no GL."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MIN_PITCH, MAX_PITCH = math.radians(-89.0), math.radians(89.0)


def perspective(fov_y_deg: float, aspect: float, near: float, far: float) -> np.ndarray:
    """OpenGL clip-space projection (column vectors), float32 4x4."""
    f = 1.0 / math.tan(math.radians(fov_y_deg) / 2.0)
    m = np.zeros((4, 4), np.float64)
    m[0, 0] = f / max(aspect, 1e-6)
    m[1, 1] = f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2.0 * far * near / (near - far)
    m[3, 2] = -1.0
    return m.astype(np.float32)


def look_at(eye: np.ndarray, target: np.ndarray, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """World-to-view matrix, float32 4x4."""
    eye = np.asarray(eye, np.float64)
    f = np.asarray(target, np.float64) - eye
    f /= np.linalg.norm(f)
    s = np.cross(f, up)
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    m = np.identity(4)
    m[0, :3], m[1, :3], m[2, :3] = s, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m.astype(np.float32)


@dataclass
class OrbitCamera:
    """Orbits `target` at `distance`; yaw around world Y, pitch above the horizon (radians)."""

    target: np.ndarray = None  # type: ignore[assignment]
    distance: float = 100.0
    yaw: float = math.radians(35.0)
    pitch: float = math.radians(35.0)
    fov_y: float = 45.0
    min_distance: float = 0.5
    max_distance: float = 100000.0
    scene_extent: float = 0.0  # metres across the open scene: the far plane reaches past it

    def __post_init__(self) -> None:
        self.target = np.zeros(3) if self.target is None else np.asarray(self.target, np.float64)

    # ---- matrices ---------------------------------------------------------------------
    def forward(self) -> np.ndarray:
        """Unit vector from the eye towards the target."""
        cp = math.cos(self.pitch)
        return -np.array([cp * math.sin(self.yaw), math.sin(self.pitch), cp * math.cos(self.yaw)])

    def eye(self) -> np.ndarray:
        return self.target - self.forward() * self.distance

    def near_far(self) -> tuple[float, float]:
        """Near grows with the distance (depth precision); far always clears the whole scene."""
        near = max(0.05, self.distance * 0.004)
        far = max(near * 10.0, self.distance * 20.0, self.distance + 1.5 * self.scene_extent)
        return near, far

    def fly(self, forward: float, right: float, up: float = 0.0) -> None:
        """Move eye and target together by metres along the view direction, sideways and up."""
        f = self.forward()
        side = np.cross(f, (0.0, 1.0, 0.0))
        n = np.linalg.norm(side)
        side = side / n if n > 1e-9 else np.array([1.0, 0.0, 0.0])
        self.target = self.target + f * forward + side * right + np.array([0.0, up, 0.0])

    def look(self, d_yaw: float, d_pitch: float) -> None:
        """Turn the view about the eye (the target swings round), as in fly mode."""
        eye = self.eye()
        self.orbit(d_yaw, d_pitch)
        self.target = eye + self.forward() * self.distance

    def view_matrix(self) -> np.ndarray:
        return look_at(self.eye(), self.target)

    def projection_matrix(self, aspect: float) -> np.ndarray:
        return perspective(self.fov_y, aspect, *self.near_far())

    def view_projection(self, aspect: float) -> np.ndarray:
        return (self.projection_matrix(aspect).astype(np.float64)
                @ self.view_matrix().astype(np.float64)).astype(np.float32)

    def ray(self, ndc_x: float, ndc_y: float, aspect: float) -> tuple[np.ndarray, np.ndarray]:
        """World-space origin and unit direction through a point in normalised device coordinates."""
        inv = np.linalg.inv(self.view_projection(aspect).astype(np.float64))
        near = inv @ np.array([ndc_x, ndc_y, -1.0, 1.0])
        far = inv @ np.array([ndc_x, ndc_y, 1.0, 1.0])
        near, far = near[:3] / near[3], far[:3] / far[3]
        d = far - near
        return near, d / np.linalg.norm(d)

    # ---- navigation -------------------------------------------------------------------
    def look_from(self, eye, target) -> None:
        """Stand at `eye` looking at `target` (world metres); the pitch stays within ±89 degrees, so
        a straight-down view comes out a hair off vertical. Raises ValueError where they coincide."""
        eye = np.asarray(eye, np.float64)
        target = np.asarray(target, np.float64)
        d = target - eye
        distance = float(np.linalg.norm(d))
        if not (np.all(np.isfinite(d)) and distance > 1e-6):
            raise ValueError("the eye and the target must be distinct finite points")
        f = d / distance
        self.pitch = min(MAX_PITCH, max(MIN_PITCH, math.asin(max(-1.0, min(1.0, -f[1])))))
        self.yaw = math.atan2(-f[0], -f[2]) % (2.0 * math.pi) if math.hypot(f[0], f[2]) > 1e-9 else self.yaw
        self.min_distance = min(self.min_distance, distance)
        self.max_distance = max(self.max_distance, distance)
        self.distance = distance
        self.target = eye + self.forward() * distance

    def orbit(self, d_yaw: float, d_pitch: float) -> None:
        self.yaw = (self.yaw + d_yaw) % (2.0 * math.pi)
        self.pitch = min(MAX_PITCH, max(MIN_PITCH, self.pitch + d_pitch))

    def pan(self, dx_pixels: float, dy_pixels: float, viewport_height: int) -> None:
        """Move the target so the ground under the cursor follows it."""
        per_pixel = 2.0 * self.distance * math.tan(math.radians(self.fov_y) / 2.0) / max(1, viewport_height)
        f = self.forward()
        right = np.cross(f, (0.0, 1.0, 0.0))
        right /= np.linalg.norm(right)
        up = np.cross(right, f)
        self.target = self.target - right * dx_pixels * per_pixel + up * dy_pixels * per_pixel

    def zoom(self, steps: float) -> None:
        """Positive steps move closer, each by about 15 %."""
        self.distance = min(self.max_distance, max(self.min_distance, self.distance * 0.85 ** steps))

    def frame(self, lo, hi, aspect: float = 1.0, margin: float = 0.92) -> None:
        """Aim at the centre of the box `lo`..`hi`, at the nearest distance where all its corners show."""
        lo = np.asarray(lo, np.float64)
        hi = np.asarray(hi, np.float64)
        self.target = (lo + hi) / 2.0
        radius = max(float(np.linalg.norm(hi - lo)) / 2.0, 1e-3)
        half_fov = math.radians(self.fov_y) / 2.0
        if aspect < 1.0:
            half_fov = math.atan(math.tan(half_fov) * aspect)
        far_enough = radius / math.sin(half_fov)  # the bounding sphere always fits from here
        self.max_distance = max(self.max_distance, far_enough * 10.0)
        corners = np.array([[x, y, z, 1.0] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                            for z in (lo[2], hi[2])])
        for _ in range(3):  # fit the distance, then re-centre on the box's projection, twice over
            self.distance = self._fit_distance(corners, aspect, margin, far_enough)
            ndc = self._project(corners, aspect)
            cx = (ndc[:, 0].min() + ndc[:, 0].max()) / 2.0
            cy = (ndc[:, 1].min() + ndc[:, 1].max()) / 2.0
            f = self.forward()
            right = np.cross(f, (0.0, 1.0, 0.0))
            right /= np.linalg.norm(right)
            up = np.cross(right, f)
            t = math.tan(math.radians(self.fov_y) / 2.0) * self.distance
            self.target = self.target + right * cx * t * aspect + up * cy * t
        self.distance = self._fit_distance(corners, aspect, margin, far_enough)

    def _project(self, points: np.ndarray, aspect: float) -> np.ndarray:
        clip = points @ self.view_projection(aspect).astype(np.float64).T
        return clip[:, :2] / clip[:, 3:4]

    def _fit_distance(self, corners: np.ndarray, aspect: float, margin: float, far_enough: float) -> float:
        """The nearest distance (at most twice `far_enough`) where every corner projects within
        `margin` of the frame's edges. Backing off moves the eye along the view direction only, so
        a corner's view x and y stay as they are and its depth grows by the distance: each corner
        gives its least distance in closed form (a bisection drew 40 matrices, a tenth of a second
        per Frame All in the software driver)."""
        f = self.forward()
        side = np.cross(f, (0.0, 1.0, 0.0))
        side /= np.linalg.norm(side)
        up = np.cross(side, f)
        rel = corners[:, :3] - self.target
        focal = 1.0 / math.tan(math.radians(self.fov_y) / 2.0)
        reach = np.maximum(np.abs(rel @ side) * focal / max(aspect, 1e-6), np.abs(rel @ up) * focal)
        ahead = rel @ f  # a corner's depth is this plus the distance
        least = max(float(np.max(reach / margin - ahead)), float(np.max(-ahead)) + 1e-9, 0.0)
        return max(self.min_distance, min(least, far_enough * 2.0))
