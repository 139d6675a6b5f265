"""glTF materials, textures, samplers and images of an export: each foliage material once (a
material two types share is written once), each image once (`textures.ImageTable`), and one
material per baked terrain tile."""

from __future__ import annotations

from dataclasses import dataclass, field

from model.foliage.materials import Material, Texture
from model.interchange.textures import ImageTable

REPEAT, MIRROR, CLAMP = 10497, 33648, 33071
WRAP = {"repeat": REPEAT, "mirror": MIRROR, "clamp": CLAMP}
LINEAR, LINEAR_MIPMAP_LINEAR = 9729, 9987
FOLIAGE, TERRAIN = 0, 1  # the plain materials every export starts with


def plain_materials() -> list[dict]:
    """The untextured look: foliage meshes without materials (lit from both sides), and a terrain
    drawn in its vertex colours."""
    return [{"name": "foliage", "doubleSided": True,
             "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0.0,
                                      "roughnessFactor": 0.9}},
            {"name": "terrain", "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1],
                                                         "metallicFactor": 0.0, "roughnessFactor": 1.0}}]


def _number(value: float) -> float | int:
    """A factor as JSON: whole numbers without a fraction (1 rather than 1.0), for short files."""
    return int(value) if float(value).is_integer() else float(value)


@dataclass
class GltfMaterials:
    """What the document's `materials`, `textures`, `samplers` and `images` will hold."""

    images: ImageTable = field(default_factory=ImageTable)
    materials: list[dict] = field(default_factory=plain_materials)
    textures: list[tuple[int, int]] = field(default_factory=list)   # (image, sampler)
    samplers: list[tuple[int, int]] = field(default_factory=list)   # (wrapS, wrapT)
    _material_index: dict[int, int] = field(default_factory=dict)
    _held: list[Material] = field(default_factory=list)

    def material(self, m: Material | None, owner: str) -> int:
        """The index of `m` (None: the plain foliage material), added the first time under the
        name `<owner>/<material>`."""
        if m is None:
            return FOLIAGE
        if id(m) in self._material_index:
            return self._material_index[id(m)]
        self._held.append(m)  # keeps the id unique while this table lives
        stem = f"{owner}_{m.name}"
        pbr: dict = {"baseColorFactor": [_number(c) for c in m.base_color],
                     "metallicFactor": _number(m.metallic), "roughnessFactor": _number(m.roughness)}
        out: dict = {"name": f"{owner}/{m.name}", "pbrMetallicRoughness": pbr}
        if m.base_texture is not None:
            pbr["baseColorTexture"] = {"index": self._texture(m.base_texture, f"{stem}_basecolor", m.wrap)}
        if m.metallic_roughness_texture is not None:
            pbr["metallicRoughnessTexture"] = {
                "index": self._texture(m.metallic_roughness_texture, f"{stem}_metalrough")}
        if m.normal_texture is not None:
            out["normalTexture"] = {"index": self._texture(m.normal_texture, f"{stem}_normal")}
            if m.normal_scale != 1.0:
                out["normalTexture"]["scale"] = _number(m.normal_scale)
        if m.occlusion_texture is not None:
            out["occlusionTexture"] = {"index": self._texture(m.occlusion_texture, f"{stem}_occlusion")}
            if m.occlusion_strength != 1.0:
                out["occlusionTexture"]["strength"] = _number(m.occlusion_strength)
        if m.alpha_mode != "OPAQUE":
            out["alphaMode"] = m.alpha_mode
        if m.alpha_mode == "MASK" and m.alpha_cutoff != 0.5:
            out["alphaCutoff"] = _number(m.alpha_cutoff)
        if m.double_sided:
            out["doubleSided"] = True
        self.materials.append(out)
        self._material_index[id(m)] = len(self.materials) - 1
        return len(self.materials) - 1

    def terrain_tile(self, pixels, name: str) -> int:
        """A material showing a baked terrain tile (clamped at its edges: no bleed from the far side)."""
        image = self.images.add_pixels(pixels, name)
        texture = self._texture_of(image, ("clamp", "clamp"))
        self.materials.append({"name": name, "pbrMetallicRoughness": {
            "baseColorTexture": {"index": texture}, "metallicFactor": 0, "roughnessFactor": 1}})
        return len(self.materials) - 1

    def _texture(self, texture: Texture, stem: str, wrap: tuple[str, str] = ("repeat", "repeat")) -> int:
        return self._texture_of(self.images.add(texture, stem), wrap)

    def _texture_of(self, image: int, wrap: tuple[str, str]) -> int:
        key = (WRAP.get(wrap[0], REPEAT), WRAP.get(wrap[1], REPEAT))
        if key not in self.samplers:
            self.samplers.append(key)
        entry = (image, self.samplers.index(key))
        if entry not in self.textures:
            self.textures.append(entry)
        return self.textures.index(entry)

    def to_document(self, doc: dict, image_refs: list[dict]) -> None:
        """Fill the document's material keys; `image_refs[k]` locates image k (a bufferView or a uri)."""
        doc["materials"] = self.materials
        if not self.images.images:
            return
        doc["images"] = image_refs
        doc["samplers"] = [{"magFilter": LINEAR, "minFilter": LINEAR_MIPMAP_LINEAR, "wrapS": s, "wrapT": t}
                           for s, t in self.samplers]
        doc["textures"] = [{"source": i, "sampler": s} for i, s in self.textures]
