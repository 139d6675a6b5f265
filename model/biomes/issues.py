"""Problems found in a biome set: errors and warnings, each naming a file and a JSON path."""

from __future__ import annotations

from dataclasses import dataclass

from model.errors import FormatError

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Issue:
    """One problem with one asset; `place` is a JSON path (`Zones[0].Zone`) or `line 3 column 7`."""

    severity: str
    asset: str
    file: str | None
    place: str
    reason: str

    @property
    def message(self) -> str:
        """The same `file: place: reason` line a `FormatError` prints."""
        return FormatError(self.file, self.place or None, self.reason).message

    def to_json(self) -> dict:
        return {"severity": self.severity, "asset": self.asset, "file": self.file,
                "place": self.place, "reason": self.reason, "message": self.message}
