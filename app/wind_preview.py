"""View ▸ Wind Preview: the stored foliage sways in the viewport (a preview only: nothing is
stored), at one of a few strengths; both remembered in the settings."""

from __future__ import annotations

from PySide6.QtGui import QAction, QActionGroup, QKeySequence

STRENGTHS = (("&Calm", 0.4), ("&Breeze", 1.0), ("&Windy", 2.0), ("&Gale", 3.5))


def install_wind_actions(main_window) -> dict[str, QAction]:
    """Add Wind Preview (a toggle) and Wind Strength (a choice) to the View menu, applied to the
    viewport and kept in `main_window.settings`."""
    view_menu = next(a.menu() for a in main_window.menuBar().actions()
                     if a.menu() is not None and a.text().replace("&", "") == "View")
    settings, viewport = main_window.settings, main_window.viewport
    on, strength = settings.wind_preview()
    toggle = QAction("&Wind Preview", main_window)
    toggle.setObjectName("action_wind_preview")
    toggle.setCheckable(True)
    toggle.setChecked(on)
    toggle.setShortcut(QKeySequence("Ctrl+Alt+W"))
    tip = "Sway the trees and bushes in the viewport as wind would (a preview: nothing is changed)"
    toggle.setToolTip(tip)
    toggle.setStatusTip(tip)
    strength_menu = view_menu.__class__("Wind &Strength", view_menu)
    strength_menu.setObjectName("menu_wind_strength")
    group = QActionGroup(main_window)
    chosen: dict[str, float] = {"strength": strength}
    by_value = {}
    for text, value in STRENGTHS:
        action = QAction(text, main_window)
        action.setObjectName(f"action_wind_{text.strip('&').lower()}")
        action.setCheckable(True)
        action.setChecked(abs(value - strength) < 1e-6)
        action.setToolTip(f"Wind preview strength {value:g}")
        group.addAction(action)
        strength_menu.addAction(action)
        by_value[value] = action

    def apply() -> None:
        viewport.set_wind(chosen["strength"] if toggle.isChecked() else 0.0)
        settings.set_wind_preview(toggle.isChecked(), chosen["strength"])

    def choose(value: float) -> None:
        chosen["strength"] = value
        if not toggle.isChecked():
            toggle.setChecked(True)  # choosing a strength means: show it
        else:
            apply()

    for value, action in by_value.items():
        action.triggered.connect(lambda checked=False, v=value: choose(v))
    toggle.toggled.connect(lambda _on: apply())
    view_menu.addSeparator()
    view_menu.addAction(toggle)
    view_menu.addMenu(strength_menu)
    viewport.addAction(toggle)
    viewport.set_wind(strength if on else 0.0)
    added = {"wind_preview": toggle, **{f"wind_{t.strip('&').lower()}": a for (t, _), a in
                                        zip(STRENGTHS, by_value.values(), strict=True)}}
    main_window.actions_by_key.update(added)
    return added
