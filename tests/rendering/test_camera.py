"""The orbit camera (pure numpy): framing, navigation limits, rays."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rendering.camera import OrbitCamera, perspective


def project(cam: OrbitCamera, points: np.ndarray, aspect: float) -> np.ndarray:
    p = np.c_[points, np.ones(len(points))] @ cam.view_projection(aspect).astype(np.float64).T
    return p[:, :3] / p[:, 3:4]


def box_corners(lo, hi) -> np.ndarray:
    return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 2 * math.pi), st.floats(0.1, 1.4), st.floats(0.4, 2.5),
       st.floats(1, 2000), st.floats(0, 300))
def test_frame_puts_every_corner_on_screen_and_fills_it(yaw, pitch, aspect, size, height) -> None:
    cam = OrbitCamera(yaw=yaw, pitch=pitch)
    lo, hi = np.array([-size / 2, 0.0, -size / 3]), np.array([size / 2, height, size / 3])
    cam.frame(lo, hi, aspect)
    ndc = project(cam, box_corners(lo, hi), aspect)
    assert np.all(np.abs(ndc[:, :2]) <= 0.93)
    assert np.all(np.abs(ndc[:, 2]) < 1.0)  # between near and far planes
    assert np.abs(ndc[:, :2]).max() > 0.85  # and not needlessly far away


def test_orbit_clamps_pitch_and_wraps_yaw() -> None:
    cam = OrbitCamera()
    cam.orbit(10 * math.pi + 0.5, 10.0)
    assert 0 <= cam.yaw < 2 * math.pi and cam.pitch < math.radians(89.5)
    cam.orbit(0.0, -20.0)
    assert cam.pitch > math.radians(-89.5)


def test_eye_sits_at_distance_along_minus_forward() -> None:
    cam = OrbitCamera(target=np.array([1.0, 2.0, 3.0]), distance=10.0)
    assert math.isclose(np.linalg.norm(cam.eye() - cam.target), 10.0)
    centre = project(cam, cam.target[None, :], 1.0)[0]
    np.testing.assert_allclose(centre[:2], [0.0, 0.0], atol=1e-6)


def test_zoom_and_pan() -> None:
    cam = OrbitCamera(distance=100.0)
    cam.zoom(1)
    assert math.isclose(cam.distance, 85.0)
    cam.zoom(-1000)
    assert cam.distance == cam.max_distance
    cam = OrbitCamera(distance=100.0)
    before = cam.target.copy()
    cam.pan(10, 0, 500)
    moved = cam.target - before
    assert np.linalg.norm(moved) > 0 and abs(np.dot(moved, cam.forward())) < 1e-9


def test_ray_through_the_centre_points_at_the_target() -> None:
    cam = OrbitCamera(target=np.array([5.0, 0.0, -3.0]), distance=50.0)
    origin, direction = cam.ray(0.0, 0.0, 1.5)
    np.testing.assert_allclose(direction, cam.forward(), atol=1e-6)
    to_target = cam.target - origin
    np.testing.assert_allclose(np.cross(direction, to_target / np.linalg.norm(to_target)), 0, atol=1e-6)


def test_perspective_maps_near_and_far_to_the_clip_range() -> None:
    m = perspective(60.0, 1.0, 1.0, 100.0).astype(np.float64)
    for depth, expected in ((1.0, -1.0), (100.0, 1.0)):
        p = m @ np.array([0.0, 0.0, -depth, 1.0])
        assert math.isclose(p[2] / p[3], expected, abs_tol=1e-5)


@settings(max_examples=60, deadline=None)
@given(st.tuples(*[st.floats(-500, 500)] * 3), st.tuples(*[st.floats(-500, 500)] * 3))
def test_look_from_stands_at_the_eye_and_centres_the_target(eye, target) -> None:
    eye, target = np.array(eye), np.array(target)
    d = target - eye
    n = np.linalg.norm(d)
    if n < 1.0 or abs(d[1]) > 0.999 * n:  # the pitch limit bends views within a degree of vertical
        return
    cam = OrbitCamera()
    cam.look_from(eye, target)
    np.testing.assert_allclose(cam.eye(), eye, atol=1e-6 * max(1.0, n))
    centre = project(cam, target[None, :], 1.3)[0]
    np.testing.assert_allclose(centre[:2], [0.0, 0.0], atol=1e-4)  # float32 matrices


def test_look_from_refuses_one_point_and_keeps_a_vertical_view_near_vertical() -> None:
    cam = OrbitCamera()
    try:
        cam.look_from((1.0, 2.0, 3.0), (1.0, 2.0, 3.0))
    except ValueError:
        pass
    else:
        raise AssertionError("the same point twice must be refused")
    cam.look_from((5.0, 100.0, 5.0), (5.0, 0.0, 5.0))
    np.testing.assert_allclose(cam.eye(), [5.0, 100.0, 5.0], atol=1e-9)
    assert cam.pitch == math.radians(89.0)
    centre = project(cam, np.array([[5.0, 0.0, 5.0]]), 1.0)[0]
    assert np.abs(centre[:2]).max() < 0.05


def _bisected_distance(cam: OrbitCamera, corners: np.ndarray, aspect: float, margin: float,
                       far_enough: float) -> float:
    """The reference: bisect the distance, projecting the corners with the camera's matrices."""
    near_d, far_d = 0.0, far_enough * 2.0
    for _ in range(40):
        cam.distance = (near_d + far_d) / 2.0
        clip = corners @ cam.view_projection(aspect).astype(np.float64).T
        w = clip[:, 3]
        fits = bool(np.all(w > 0) and np.all(np.abs(clip[:, :2]) <= margin * w[:, None]))
        near_d, far_d = (near_d, cam.distance) if fits else (cam.distance, far_d)
    return max(cam.min_distance, far_d)


@settings(max_examples=80, deadline=None)
@given(st.floats(0, 2 * math.pi), st.floats(-1.4, 1.4), st.floats(0.4, 2.5), st.floats(1, 2000),
       st.floats(0, 300), st.floats(-500, 500), st.floats(0.5, 1.0))
def test_the_fitted_distance_is_the_bisected_one(yaw, pitch, aspect, size, height, off, margin) -> None:
    cam = OrbitCamera(yaw=yaw, pitch=pitch, target=np.array([off, 0.0, -off / 2]))
    lo, hi = np.array([-size / 2, 0.0, -size / 3]), np.array([size / 2, height, size / 3])
    corners = np.c_[box_corners(lo, hi), np.ones(8)]
    far_enough = float(np.linalg.norm(hi - lo)) / math.sin(math.radians(cam.fov_y) / 2.0)
    fitted = cam._fit_distance(corners, aspect, margin, far_enough)
    reference = _bisected_distance(cam, corners, aspect, margin, far_enough)
    assert math.isclose(fitted, reference, rel_tol=2e-5, abs_tol=1e-6), (fitted, reference)
