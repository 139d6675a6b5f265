"""Bundled data: demo scene, sample foliage types and rule files, shaders, icons."""

from pathlib import Path

RESOURCES = Path(__file__).resolve().parent
