"""The editor's persistent settings (window layout, recent files) in one INI file.

Tests and scripts redirect it with `use_settings_folder(path)` or `BOSCAGE_SETTINGS_DIR`.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

ORGANIZATION = "Boscage"
APPLICATION = "Boscage"
MAX_RECENT = 10
DEFAULT_AUTOSAVE_S = 120

_folder: Path | None = None


def use_settings_folder(folder: str | Path | None) -> None:
    """Keep settings in `folder/boscage.ini` from now on (None: the user's default place)."""
    global _folder
    _folder = Path(folder) if folder is not None else None


def settings_path() -> Path | None:
    """The redirected INI file, or None when Qt's per-user location is used."""
    folder = _folder or (Path(os.environ["BOSCAGE_SETTINGS_DIR"])
                         if os.environ.get("BOSCAGE_SETTINGS_DIR") else None)
    return folder / "boscage.ini" if folder is not None else None


def data_folder() -> Path:
    """Where the editor keeps its own files (recovery copies): the redirected settings folder if
    there is one, so tests and scripts stay private, else the user's application data folder."""
    redirected = settings_path()
    if redirected is not None:
        return redirected.parent
    location = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    return (Path(location) if location else Path.home() / ".local" / "share") / APPLICATION


class Settings:
    """Typed access to the few things the editor remembers."""

    def __init__(self) -> None:
        path = settings_path()
        if path is not None:
            self.qsettings = QSettings(str(path), QSettings.Format.IniFormat)
        else:
            self.qsettings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope,
                                       ORGANIZATION, APPLICATION)

    # ---- recent files -----------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.qsettings.value("files/recent", [])
        if isinstance(value, str):  # QSettings returns a lone string for a one-item list
            value = [value]
        return [str(v) for v in (value or [])][:MAX_RECENT]

    def add_recent_file(self, path: str | Path) -> list[str]:
        text = str(Path(path).resolve())
        files = [text] + [f for f in self.recent_files() if f != text]
        self.qsettings.setValue("files/recent", files[:MAX_RECENT])
        return files[:MAX_RECENT]

    def remove_recent_file(self, path: str | Path) -> list[str]:
        files = [f for f in self.recent_files() if f != str(path)]
        self.qsettings.setValue("files/recent", files)
        return files

    def clear_recent_files(self) -> None:
        self.qsettings.setValue("files/recent", [])

    # ---- window layout ----------------------------------------------------------------
    def window_geometry(self) -> QByteArray | None:
        value = self.qsettings.value("window/geometry")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def window_state(self) -> QByteArray | None:
        value = self.qsettings.value("window/state")
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_window_layout(self, geometry: QByteArray, state: QByteArray) -> None:
        self.qsettings.setValue("window/geometry", geometry)
        self.qsettings.setValue("window/state", state)

    def open_tool_windows(self) -> list[str]:
        value = self.qsettings.value("window/tool_windows", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def set_open_tool_windows(self, keys: list[str]) -> None:
        self.qsettings.setValue("window/tool_windows", list(keys))

    # ---- autosave -----------------------------------------------------------------------
    def autosave_interval(self) -> int:
        """Seconds between recovery copies of a modified document (0: no autosave)."""
        try:
            return max(0, int(self.qsettings.value("autosave/interval_s", DEFAULT_AUTOSAVE_S)))
        except (TypeError, ValueError):
            return DEFAULT_AUTOSAVE_S

    def set_autosave_interval(self, seconds: int) -> None:
        self.qsettings.setValue("autosave/interval_s", max(0, int(seconds)))

    # ---- wind preview -------------------------------------------------------------------
    def wind_preview(self) -> tuple[bool, float]:
        """(on, strength) of the viewport's wind preview: off, strength 1, unless changed."""
        on = str(self.qsettings.value("view/wind", "false")).lower() in ("true", "1")
        try:
            strength = float(self.qsettings.value("view/wind_strength", 1.0))
        except (TypeError, ValueError):
            strength = 1.0
        return on, strength if 0.0 < strength <= 10.0 else 1.0

    def set_wind_preview(self, on: bool, strength: float) -> None:
        self.qsettings.setValue("view/wind", bool(on))
        self.qsettings.setValue("view/wind_strength", float(strength))

    def sync(self) -> None:
        self.qsettings.sync()
