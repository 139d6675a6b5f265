"""Foliage meshes for the renderer: generated and read in `model.foliage.meshes` (numpy only, so
the model's exporters use the same geometry); re-exported here for the rendering code."""

from model.foliage.meshes import (  # noqa: F401
    BARK,
    BLADES,
    BUILTIN,
    FILE_COLOUR,
    LEAVES,
    MAX_FILE_TRIANGLES,
    NEEDLES,
    SHRUB,
    STONE,
    VERTEX_FLOATS,
    Mesh,
    blob,
    broadleaf,
    builtin_mesh,
    bush,
    conifer,
    frustum,
    grass,
    load_mesh_file,
    mesh_for,
    ring,
    rock,
    triangles,
)
