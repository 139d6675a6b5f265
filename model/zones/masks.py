"""Where plants may grow, from the control layer's bits."""

from __future__ import annotations

import numpy as np

from model.zones.names import DEVRINOL_FORBIDDING, PLANT_FORBIDDING


def plant_allowed(control: np.ndarray) -> np.ndarray:
    """None of AntiPlant, Roaming, Highway, PBSHighway, ConcreteA, ConcreteB."""
    return (np.asarray(control) & PLANT_FORBIDDING) == 0


def devrinol_allowed(control: np.ndarray) -> np.ndarray:
    """Not AntiPlant (plants that place concrete may grow on concrete and roads)."""
    return (np.asarray(control) & DEVRINOL_FORBIDDING) == 0
