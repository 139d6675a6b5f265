import numpy as np
import pytest

from model.foliage.scatter import up_of
from model.interchange.conventions import (
    ENGINE_PRESETS,
    Conventions,
    from_target,
    quaternion_matrices,
    quaternions,
    rotation_matrices,
    to_target,
    yaw_pitch_roll,
)


def random_records(n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    r = np.empty((n, 7), np.float32)
    r[:, :3] = rng.uniform(-500, 500, (n, 3))
    r[:, 3] = rng.uniform(-np.pi, np.pi, n)
    r[:, 4] = rng.uniform(-1.4, 1.4, n)
    r[:, 5] = rng.uniform(-np.pi, np.pi, n)
    r[:, 6] = rng.uniform(0.5, 2.0, n)
    return r


def test_rotation_is_the_renderers_order():
    r = random_records(200)
    up = rotation_matrices(r) @ np.array([0.0, 1.0, 0.0])
    np.testing.assert_allclose(up, up_of(r), atol=1e-12)
    yaw_only = np.zeros((1, 7), np.float32)
    yaw_only[0, 3] = np.pi / 2  # +90° about +Y carries +Z onto +X (right-handed)
    np.testing.assert_allclose(rotation_matrices(yaw_only)[0] @ [0, 0, 1], [1, 0, 0], atol=1e-7)


def test_matrix_quaternion_and_angles_invert_each_other():
    r = random_records(500, seed=2)
    m = rotation_matrices(r)
    q = quaternions(m)
    assert np.all(q[:, 3] >= 0)
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(quaternion_matrices(q), m, atol=1e-12)
    np.testing.assert_allclose(yaw_pitch_roll(m), r[:, 3:6], atol=1e-6)


def test_gimbal_lock_keeps_the_rotation():
    r = np.array([[0, 0, 0, 0.7, np.pi / 2, 0.3, 1]], np.float32)
    back = yaw_pitch_roll(rotation_matrices(r))
    rebuilt = np.concatenate([r[:, :3], back, r[:, 6:]], axis=1)
    np.testing.assert_allclose(rotation_matrices(rebuilt), rotation_matrices(r), atol=1e-6)


@pytest.mark.parametrize("name", sorted(ENGINE_PRESETS))
def test_round_trip_through_every_engine(name):
    conv = ENGINE_PRESETS[name]
    r = random_records(300, seed=3)
    t = to_target(r, conv)
    back = from_target(t.positions, t.rotations, t.scales, conv)
    np.testing.assert_allclose(back[:, :3], r[:, :3], atol=1e-4)
    np.testing.assert_array_equal(back[:, 6], r[:, 6])
    np.testing.assert_allclose(rotation_matrices(back), rotation_matrices(r), atol=1e-6)


def test_identity_keeps_positions_and_scales_bit_exact():
    r = random_records(100, seed=4)
    t = to_target(r)
    back = from_target(t.positions, t.rotations, t.scales)
    assert back[:, :3].tobytes() == r[:, :3].tobytes()
    assert back[:, 6].tobytes() == r[:, 6].tobytes()


# The asymmetric instance: position (1, 2, 3), yaw 90°, pitch 10°. Its mesh's local +Y (up) and
# +Z (front) in the scene, then where each target must put the position and those two directions.
INSTANCE = np.array([[1, 2, 3, np.radians(90), np.radians(10), 0, 1]], np.float32)
SCENE_UP = rotation_matrices(INSTANCE)[0] @ [0, 1, 0]
SCENE_FRONT = rotation_matrices(INSTANCE)[0] @ [0, 0, 1]
EXPECTED = {  # target position; the scene vector v = (vx, vy, vz) becomes …
    Conventions("y", "right", "m"): ((1, 2, 3), lambda v: (v[0], v[1], v[2])),
    Conventions("y", "left", "m"): ((-1, 2, 3), lambda v: (-v[0], v[1], v[2])),
    Conventions("z", "right", "m"): ((1, -3, 2), lambda v: (v[0], -v[2], v[1])),
    Conventions("z", "left", "cm"): ((100, 300, 200), lambda v: (v[0], v[2], v[1])),
}


@pytest.mark.parametrize("conv", list(EXPECTED), ids=lambda c: f"{c.up}-{c.handedness}-{c.units}")
def test_asymmetric_instance_lands_where_the_convention_says(conv):
    position, direction = EXPECTED[conv]
    t = to_target(INSTANCE, conv)
    np.testing.assert_allclose(t.positions[0], position, atol=1e-4)
    rot = quaternion_matrices(t.rotations)[0]
    local_up = conv.basis @ [0, 1, 0]  # the mesh's own axes are carried into the target frame too
    local_front = conv.basis @ [0, 0, 1]
    np.testing.assert_allclose(rot @ local_up, direction(SCENE_UP), atol=1e-6)
    np.testing.assert_allclose(rot @ local_front, direction(SCENE_FRONT), atol=1e-6)
    m = t.matrices()[0]
    np.testing.assert_allclose(m[:3, 3], position, atol=1e-4)


def test_yaw_ninety_pitch_ten_in_numbers():
    # Scene: up leans 10° towards +X (front +Z yawed onto +X, pitched down by 10°).
    np.testing.assert_allclose(SCENE_UP, [np.sin(np.radians(10)), np.cos(np.radians(10)), 0], atol=1e-7)
    np.testing.assert_allclose(SCENE_FRONT, [np.cos(np.radians(10)), -np.sin(np.radians(10)), 0],
                               atol=1e-7)


def test_bad_convention_is_refused():
    with pytest.raises(ValueError, match="up axis"):
        Conventions(up="x")
    with pytest.raises(ValueError, match="units"):
        Conventions(units="ft")


@pytest.mark.parametrize("name", sorted(ENGINE_PRESETS))
def test_closed_form_quaternions_match_the_matrix_path(name):
    from model.interchange.conventions import record_quaternions

    rng = np.random.default_rng(11)
    rec = np.zeros((2000, 7), np.float32)
    rec[:, 3:6] = rng.uniform(-4, 4, (2000, 3))
    rec[:10, 4] = np.float32(np.pi / 2)  # gimbal lock
    conv = ENGINE_PRESETS[name]
    m = conv.basis
    want = quaternions(m @ rotation_matrices(rec) @ m.T)
    got = record_quaternions(rec, conv)
    assert np.allclose(got, want, atol=1e-12) or np.allclose(np.abs(got), np.abs(want), atol=1e-12)
    assert np.allclose(quaternion_matrices(got), m @ rotation_matrices(rec) @ m.T, atol=1e-12)
    assert (got[:, 3] >= 0).all()
    fast = record_quaternions(rec, conv, single=True)
    assert np.abs(quaternion_matrices(fast) - quaternion_matrices(got)).max() < 1e-6
