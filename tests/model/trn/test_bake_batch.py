import numpy as np
import pytest

from model.batch import BatchCancelled
from model.trn.bake_batch import evaluate_in_tiles
from model.trn.evaluator import FLORA_SLOTS, Region, evaluate
from model.trn.synthetic import realistic_stack


@pytest.fixture(scope="module")
def doc():
    return realistic_stack(12, seed=3, extent=600.0)


def same(a, b) -> None:
    for name in ("heights", "color", "shader", "shader_child", "environment", "exclude", "passable"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    for slot in FLORA_SLOTS:
        assert a.flora[slot].tobytes() == b.flora[slot].tobytes()
        assert a.flora_child[slot].tobytes() == b.flora_child[slot].tobytes()


@pytest.mark.parametrize("tile", [37, 100])
def test_tiles_give_the_bytes_of_one_evaluation(doc, tile):
    region = Region.from_bounds(-300, -250, 280, 200, 4.0)
    same(evaluate_in_tiles(doc, region, tile=tile), evaluate(doc, region))


def test_a_stopped_bake_resumes_to_the_same_bytes(doc, tmp_path):
    region = Region.from_bounds(-200, -200, 200, 200, 4.0)
    with pytest.raises(BatchCancelled):
        evaluate_in_tiles(doc, region, tile=25, store_folder=tmp_path / "t", progress=lambda d, t: d < 5)
    assert len(list((tmp_path / "t").glob("*.npz"))) == 5
    seen = []
    ev = evaluate_in_tiles(doc, region, tile=25, store_folder=tmp_path / "t", resume=True,
                           progress=lambda d, t: seen.append(d) or True)
    assert seen[0] == 5
    same(ev, evaluate(doc, region))
    assert np.isfinite(ev.heights).all()


def test_a_scene_imported_on_worker_processes_is_the_same_scene(doc):
    from model.trn.to_scene import trn_to_scene

    region = Region.from_bounds(-200, -200, 200, 200, 4.0)
    one = trn_to_scene(doc, region)
    two = trn_to_scene(doc, region, workers=2)
    assert one.terrain.heights.tobytes() == two.terrain.heights.tobytes()
    assert [(layer.name, layer.weights.tobytes()) for layer in one.terrain.layers] == \
        [(layer.name, layer.weights.tobytes()) for layer in two.terrain.layers]


def test_cancelling_a_batch_import_stops_and_changes_nothing(doc):
    from model.trn.to_scene import ImportCancelled, trn_to_scene

    region = Region.from_bounds(-300, -300, 300, 300, 4.0)
    seen = []
    with pytest.raises(ImportCancelled):
        trn_to_scene(doc, region, progress=lambda f, what: seen.append(f) or len(seen) < 3, workers=2)
    assert len(seen) == 3


def test_tiles_travel_with_narrow_ids_and_arrive_as_the_evaluation():
    from model.trn import build
    from model.trn.bake_batch import bake_tile
    from tests.model.trn.helpers import doc_of, shader

    def paint(fid):
        return build.item("ASCN", "0001", shaderFamily=fid, useFeatherClampOverride=0,
                          featherClampOverride=0.0)

    small = doc_of([build.layer("all", [paint(7)])], shaders=[shader(7)])
    region = Region.from_bounds(-20, -20, 20, 20, 4.0)
    assert bake_tile(small, None, region)["shader"].dtype == np.int16
    # an id past int16 keeps its width on the way
    big = doc_of([build.layer("all", [paint(7)]), build.layer("far", [paint(40000)])],
                 shaders=[shader(7), shader(40000)])
    assert bake_tile(big, None, region)["shader"].dtype == np.int32
    for doc in (small, big):
        ev = evaluate_in_tiles(doc, region, tile=4)
        same(ev, evaluate(doc, region))
        assert ev.shader.dtype == np.int32 and ev.flora["collidable"].dtype == np.int32
    assert (evaluate_in_tiles(big, region, tile=4).shader == 40000).all()


def test_a_tile_from_the_documents_bytes_is_the_tile_from_the_document():
    # workers get the TRN bytes (fast to send) and parse them once per process
    from model.trn import bake_batch, synthetic

    doc = synthetic.realistic_stack(n_layers=12, seed=3)
    region = Region(-40, -40, 64, 64, 8.0)
    data = doc.to_bytes()
    from_doc, from_bytes = bake_batch.bake_tile(doc, None, region), bake_batch.bake_tile(data, None, region)
    assert from_doc.keys() == from_bytes.keys()
    for name in from_doc:
        assert np.array_equal(from_doc[name], from_bytes[name]), name
    parsed = bake_batch._document(data)
    assert bake_batch._document(bytearray(data)) is parsed  # parsed once, then reused
