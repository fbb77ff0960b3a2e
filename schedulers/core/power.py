"""Host power models: linear Pmin/Pmax, SPECpower-style tables, per-core DVFS levels.

All models map utilisation ``u`` in [0, 1] (scalar or numpy array) to watts, so
power series can be computed for a whole timeline at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["SPECPOWER_TABLES", "DvfsLevel", "DvfsPower", "LinearPower", "TablePower"]

# Watts at 0%, 10%, ..., 100% utilisation (docs/workload-models.md §7.1, CloudSim).
SPECPOWER_TABLES: dict[str, tuple[float, ...]] = {
    "ibm_x3250_xeon_x3470": (41.6, 46.7, 52.3, 57.9, 65.4, 73, 80.7, 89.5, 99.6, 105, 113),
    "ibm_x3250_xeon_x3480": (42.3, 46.7, 49.7, 55.4, 61.8, 69.3, 76.1, 87, 96.1, 106, 113),
    "hp_ml110_g4_xeon_3040": (86, 89.4, 92.6, 96, 99.5, 102, 106, 108, 112, 114, 117),
    "hp_ml110_g5_xeon_3075": (93.7, 97, 101, 105, 110, 116, 121, 125, 129, 133, 135),
    "hp_ml110_g3_pentium_d930": (105, 112, 118, 125, 131, 137, 147, 153, 157, 164, 169),
    "ibm_x3550_xeon_x5670": (66, 107, 120, 131, 143, 156, 173, 191, 211, 229, 247),
    "ibm_x3550_xeon_x5675": (58.4, 98, 109, 118, 128, 140, 153, 170, 189, 205, 222),
}


def _check_util(u: np.ndarray) -> np.ndarray:
    u = np.asarray(u, dtype=float)
    if np.any((u < -1e-9) | (u > 1 + 1e-9)):
        raise ValueError("utilisation must lie in [0, 1]")
    return np.clip(u, 0.0, 1.0)


@dataclass(frozen=True)
class LinearPower:
    """P(u) = Pmin + (Pmax − Pmin)·u — the model of paper 003 (eq. 11: α·T + β·L)."""

    p_min_w: float
    p_max_w: float

    def __post_init__(self) -> None:
        if not 0 <= self.p_min_w <= self.p_max_w:
            raise ValueError("need 0 ≤ p_min_w ≤ p_max_w")

    def power(self, u):
        u = _check_util(u)
        out = self.p_min_w + (self.p_max_w - self.p_min_w) * u
        return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class TablePower:
    """Piecewise-linear interpolation of a table at evenly spaced utilisations.

    With 11 points this is CloudSim's SPECpower model (docs/workload-models.md §7.1):
    ``i = floor(10u)``, ``P = P[i] + (P[i+1] − P[i])·(10u − i)``.
    """

    watts: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.watts) < 2:
            raise ValueError("a power table needs at least two points")
        if any(w < 0 for w in self.watts):
            raise ValueError("power table values must be ≥ 0")

    @classmethod
    def named(cls, name: str) -> TablePower:
        return cls(SPECPOWER_TABLES[name])

    def power(self, u):
        u = _check_util(u)
        xs = np.linspace(0.0, 1.0, len(self.watts))
        out = np.interp(u, xs, np.asarray(self.watts, dtype=float))
        return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class DvfsLevel:
    freq_ghz: float
    voltage_v: float


@dataclass(frozen=True)
class DvfsPower:
    """Per-core DVFS host power: static part plus, per core, C·V²·f at its level.

    docs/workload-models.md §7.2: ``P = P_static + Σ_cores C_eff·V²·f`` for busy cores, and an
    idle-core power ``p_core_idle_w`` for cores that hold no work. ``c_eff`` is
    fitted so that all cores at the top level give ``p_max_w``.
    """

    levels: tuple[DvfsLevel, ...]
    cores: int
    p_static_w: float
    p_max_w: float
    p_core_idle_w: float = 0.0
    _c_eff: float = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.levels:
            raise ValueError("need at least one DVFS level")
        top = max(self.levels, key=lambda lv: lv.freq_ghz)
        dyn = (self.p_max_w - self.p_static_w) / (self.cores * top.voltage_v**2 * top.freq_ghz)
        if dyn < 0:
            raise ValueError("p_max_w must be ≥ p_static_w")
        object.__setattr__(self, "_c_eff", dyn)

    def core_power(self, level: int) -> float:
        """Dynamic watts of one busy core at ``level`` (index into ``levels``)."""
        lv = self.levels[level]
        return self._c_eff * lv.voltage_v**2 * lv.freq_ghz

    def host_power(self, busy_levels: Sequence[int | None]) -> float:
        """Host watts for per-core levels; ``None`` marks an idle core."""
        watts = self.p_static_w
        for level in busy_levels:
            watts += self.p_core_idle_w if level is None else self.core_power(level)
        return watts
