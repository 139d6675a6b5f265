"""Payload layouts of every TRN chunk, per tag and version (binding: spec/trn.md)."""

from __future__ import annotations

from model.trn.fields import Layout


def L(*fields: tuple) -> Layout:  # noqa: N802 - reads like a table
    return tuple(fields)


# ---- header ------------------------------------------------------------------------------
_FLORA_GROUP = ("minDist", "maxDist", "tileSize", "tileBorder", "seed")
FLORA_GROUP_PREFIXES = ("collidable", "nonCollidable", "radial", "farRadial")


def _flora_groups() -> Layout:
    out = []
    for prefix in FLORA_GROUP_PREFIXES:
        for f in _FLORA_GROUP:
            out.append((f"{prefix}.{f}", "u32" if f == "seed" else "f32"))
    return tuple(out)


_HEADER_BASE = L(("name", "cstr"), ("mapWidth", "f32"), ("chunkWidth", "f32"), ("tilesPerChunk", "i32"),
                 ("useGlobalWaterTable", "i32"), ("globalWaterHeight", "f32"),
                 ("globalWaterShaderSize", "f32"), ("globalWaterShader", "cstr"),
                 ("environmentCycleTime", "f32"))
_LEGACY = L(("legacy0", "cstr"), ("legacy1", "cstr"), ("legacy2", "f32"), ("legacy3", "cstr"),
            ("legacy4", "f32"), ("legacy5", "cstr"), ("legacy6", "f32"), ("legacy7", "cstr"),
            ("legacy8", "f32"), ("legacy9", "i32"), ("legacy10", "cstr"))

HEADER = {
    "0013": _HEADER_BASE + _LEGACY + _flora_groups(),
    "0014": _HEADER_BASE + _flora_groups(),
    "0015": _HEADER_BASE + _flora_groups() + L(("legacyMap", "bool8")),
}
VERSIONS = tuple(HEADER)

BAKED_DATA = L(("mapWidth", "f32"), ("chunkWidth", "f32"), ("width", "i32"), ("height", "i32"))

# ---- families ----------------------------------------------------------------------------
SFAM = L(("id", "i32"), ("name", "cstr"), ("surfaceProperties", "cstr"), ("color", "rgb"),
         ("shaderSize", "f32"), ("featherClamp", "f32"),
         ("children", ("list", L(("shader", "cstr"), ("weight", "f32")))))
FFAM = L(("id", "i32"), ("name", "cstr"), ("color", "rgb"), ("density", "f32"), ("floats", "i32"),
         ("children", ("list", L(("appearance", "cstr"), ("weight", "f32"), ("sway", "i32"),
                                 ("displacement", "f32"), ("period", "f32"), ("alignToTerrain", "i32"),
                                 ("shouldScale", "i32"), ("minScale", "f32"), ("maxScale", "f32")))))
_RFAM_HEAD = L(("id", "i32"), ("name", "cstr"), ("color", "rgb"), ("density", "f32"))
RFAM = {
    "0004": _RFAM_HEAD + L(("children", ("list", L(
        ("shader", "cstr"), ("weight", "f32"), ("distance", "f32"), ("minWidth", "f32"),
        ("maxWidth", "f32"), ("minHeight", "f32"), ("maxHeight", "f32"), ("keepAspect", "i32"),
        ("sway", "i32"), ("displacement", "f32"), ("period", "f32"), ("alignToTerrain", "i32"),
        ("createPlus", "i32"))))),
    "0003": _RFAM_HEAD + L(("children", ("list", L(
        ("shader", "cstr"), ("weight", "f32"), ("distance", "f32"), ("minWidth", "f32"),
        ("maxWidth", "f32"), ("sway", "i32"), ("displacement", "f32"), ("period", "f32"),
        ("alignToTerrain", "i32"), ("createPlus", "i32"))))),
}
EFAM = L(("id", "i32"), ("name", "cstr"), ("color", "rgb"), ("featherClamp", "f32"))
MFAM_FRACTAL = L(("id", "i32"), ("name", "cstr"))
MFAM_BITMAP = L(("id", "i32"), ("name", "cstr"), ("bitmapFile", "cstr"))
_MFRC_HEAD = L(("seed", "u32"), ("useBias", "i32"), ("bias", "f32"), ("useGain", "i32"), ("gain", "f32"),
               ("octaves", "i32"), ("frequency", "f32"), ("amplitude", "f32"), ("scaleX", "f32"),
               ("scaleY", "f32"))
MFRC = {
    "0001": _MFRC_HEAD + L(("offsetX", "f32"), ("offsetY", "f32"), ("combinationRule", "i32")),
    "0000": _MFRC_HEAD + L(("combinationRule", "i32")),
}
# group tag → (supported version, family chunk tag or form name)
GROUP_VERSIONS = {"SGRP": ("0006",), "FGRP": ("0008",), "RGRP": ("0003", "0004"), "EGRP": ("0002",),
                  "MGRP": ("0000",)}

# ---- layers and items --------------------------------------------------------------------
IHDR = {"0001": L(("active", "i32"), ("name", "cstr")),
        "0000": L(("active", "i32"), ("name", "cstr"), ("color", "rgb"))}

ADTA = {
    "0001": L(("invertBoundaries", "i32"), ("invertFilters", "i32")),
    "0002": L(("invertBoundaries", "i32"), ("invertFilters", "i32"), ("expanded", "i32")),
    "0003": L(("invertBoundaries", "i32"), ("invertFilters", "i32"), ("expanded", "i32"), ("notes", "cstr")),
    "0004": L(("invertBoundaries", "i32"), ("invertFilters", "i32"), ("unused", "i32"), ("expanded", "i32"),
              ("notes", "cstr")),
}

_FEATHER = L(("featherFn", "i32"), ("feather", "f32"))
_BREC2 = L(("x0", "f32"), ("z0", "f32"), ("x1", "f32"), ("z1", "f32")) + _FEATHER
_BREC3 = _BREC2 + L(("localWater", "i32"), ("localGlobalWater", "i32"), ("waterHeight", "f32"),
                    ("waterShaderSize", "f32"), ("waterShader", "cstr"))
_BPOL5 = L(("points", "xz*"), ("featherFn", "i32"), ("featherDistance", "f32"), ("localWater", "i32"),
           ("waterHeight", "f32"), ("waterShaderSize", "f32"))
_BPLN = L(("points", "xz*"), ("featherFn", "i32"), ("feather", "f32"), ("width", "f32"))
_FLORA = L(("floraFamily", "i32"), ("operation", "i32"), ("removeAll", "i32"), ("densityOverride", "i32"),
           ("density", "f32"))
_ROAD = L(("points", "xz*"), ("heights", "f32*"), ("width", "f32"), ("shaderFamily", "i32"),
          ("featherFn", "i32"), ("feather", "f32"), ("featherFnShader", "i32"), ("featherShader", "f32"),
          ("fixedHeights", "i32"))
_RIVER5 = L(("points", "xz*"), ("width", "f32"), ("bankFamily", "i32"), ("bottomFamily", "i32"),
            ("featherFn", "i32"), ("feather", "f32"), ("trenchDepth", "f32"), ("velocity", "f32"),
            ("hasWater", "i32"), ("waterDepth", "f32"), ("waterWidth", "f32"), ("waterShaderSize", "f32"),
            ("waterShader", "cstr"))

# (tag, version) → payload layout. PARM_ITEMS keep theirs in `FORM DATA › PARM`.
ITEMS: dict[tuple[str, str], Layout] = {
    ("BCIR", "0002"): L(("cx", "f32"), ("cz", "f32"), ("radius", "f32")) + _FEATHER,
    ("BREC", "0002"): _BREC2,
    ("BREC", "0003"): _BREC3,
    ("BREC", "0004"): _BREC3 + L(("waterType", "i32"),),
    ("BPOL", "0005"): _BPOL5 + L(("waterShader", "cstr"),),
    ("BPOL", "0007"): _BPOL5 + L(("waterType", "i32"), ("waterShader", "cstr")),
    ("BPLN", "0001"): _BPLN,
    ("BPLN", "0003"): _BPLN,
    ("FHGT", "0002"): L(("low", "f32"), ("high", "f32")) + _FEATHER,
    ("FSLP", "0002"): L(("minAngle", "f32"), ("maxAngle", "f32")) + _FEATHER,
    ("FDIR", "0000"): L(("minAngle", "f32"), ("maxAngle", "f32")) + _FEATHER,
    ("FFRA", "0005"): L(("fractalFamily", "i32")) + _FEATHER + L(("low", "f32"), ("high", "f32"),
                                                                    ("scaleY", "f32")),
    ("FBIT", "0001"): L(("bitmapFamily", "i32")) + _FEATHER + L(("low", "f32"), ("high", "f32"),
                                                                   ("gain", "f32")),
    ("FSHD", "0000"): L(("shaderFamily", "i32"),),
    ("AHCN", "0000"): L(("operation", "i32"), ("height", "f32")),
    ("AHFR", "0003"): L(("fractalFamily", "i32"), ("operation", "i32"), ("scaleY", "f32")),
    ("AHTR", "0004"): L(("flatRatio", "f32"), ("height", "f32")),
    ("ACCN", "0000"): L(("operation", "i32"), ("color", "rgb")),
    ("ACRH", "0000"): L(("operation", "i32"), ("low", "f32"), ("high", "f32"), ("rampImage", "cstr")),
    ("ACRF", "0001"): L(("fractalFamily", "i32"), ("operation", "i32"), ("rampImage", "cstr")),
    ("ASCN", "0001"): L(("shaderFamily", "i32"), ("useFeatherClampOverride", "i32"),
                        ("featherClampOverride", "f32")),
    ("ASRP", "0001"): L(("sourceFamily", "i32"), ("destinationFamily", "i32"), ("useOverride", "i32"),
                        ("override", "f32")),
    ("AFSC", "0004"): _FLORA,
    ("AFSN", "0004"): _FLORA,
    ("AFCN", "0004"): _FLORA,
    ("AFDN", "0002"): _FLORA,
    ("AFDF", "0002"): _FLORA,
    ("ARCN", "0002"): _FLORA,
    ("AENV", "0000"): L(("environmentFamily", "i32"), ("useOverride", "i32"), ("override", "f32")),
    ("AEXC", "0000"): L(),
    ("APAS", "0000"): L(("passable", "bool8"), ("threshold", "f32")),
    ("AROA", "0005"): _ROAD,
    ("AROA", "0006"): _ROAD,
    ("ARIV", "0005"): _RIVER5,
    ("ARIV", "0006"): _RIVER5 + L(("waterType", "i32"),),
}
# Older payloads a version also occurs with, tried when the spec's layout does not fit: the original
# engine reads AROA 0005 without the height list and the fixed-heights flag that 0006 added.
ALT_ITEMS: dict[tuple[str, str], tuple[Layout, ...]] = {
    ("AROA", "0005"): (L(("points", "xz*"), ("width", "f32"), ("shaderFamily", "i32"), ("featherFn", "i32"),
                         ("feather", "f32"), ("featherFnShader", "i32"), ("featherShader", "f32")),),
}
PARM_ITEMS = {"FFRA", "FBIT", "AHFR", "ACRF"}
# Roads and rivers keep `FORM DATA` › HDTA (kept raw) and their `DATA`.
NESTED_DATA_ITEMS = {"AROA", "ARIV"}
ALIASES = {"AFCN": "AFSC", "ARCN": "AFDN"}

BOUNDARIES = {"BCIR", "BREC", "BPOL", "BPLN"}
FILTERS = {"FHGT", "FSLP", "FDIR", "FFRA", "FBIT", "FSHD"}
AFFECTORS = {"AHCN", "AHFR", "AHTR", "ACCN", "ACRH", "ACRF", "ASCN", "ASRP", "AFSC", "AFSN", "AFCN",
             "AFDN", "AFDF", "ARCN", "AENV", "AEXC", "APAS", "AROA", "ARIV", "ARIB"}

TITLES = {
    "LAYR": "Layer", "BCIR": "Boundary circle", "BREC": "Boundary rectangle", "BPOL": "Boundary polygon",
    "BPLN": "Boundary polyline", "FHGT": "Filter height", "FSLP": "Filter slope", "FDIR": "Filter direction",
    "FFRA": "Filter fractal", "FBIT": "Filter bitmap", "FSHD": "Filter shader",
    "AHCN": "Height constant", "AHFR": "Height fractal", "AHTR": "Height terrace",
    "ACCN": "Colour constant", "ACRH": "Colour ramp by height", "ACRF": "Colour ramp by fractal",
    "ASCN": "Shader constant", "ASRP": "Shader replace", "AFSC": "Flora collidable",
    "AFCN": "Flora collidable", "AFSN": "Flora non-collidable", "AFDN": "Radial flora near",
    "ARCN": "Radial flora near", "AFDF": "Radial flora far", "AENV": "Environment", "AEXC": "Exclude",
    "APAS": "Passable", "AROA": "Road", "ARIV": "River", "ARIB": "River bank",
}


def kind_of(tag: str) -> str:
    """'layer', 'boundary', 'filter', 'affector' or 'unknown'."""
    if tag == "LAYR":
        return "layer"
    if tag in BOUNDARIES:
        return "boundary"
    if tag in FILTERS:
        return "filter"
    if tag in AFFECTORS:
        return "affector"
    return "unknown"
