"""CRC-32 (zlib's function) at memory speed: ISA-L's carry-less-multiply version when installed
(a runtime dependency; about 9x zlib's on the same bytes), else zlib's own."""

from __future__ import annotations

try:
    from isal.isal_zlib import crc32
    FAST_CRC = True
except ImportError:  # pragma: no cover - depends on the environment
    from zlib import crc32
    FAST_CRC = False

__all__ = ["FAST_CRC", "crc32"]
