"""Seeded randomness. Every random draw comes from a Generator derived from the scenario seed.

Streams are keyed by (repetition, purpose) so that, within one repetition, every
algorithm sees the same workload (stream ``"workload"``) whatever the other
streams consume, and adding an algorithm never changes another's numbers.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["child_seed", "stream"]


def _key(name: str) -> int:
    return zlib.crc32(name.encode("utf-8"))


def stream(seed: int, repetition: int, name: str) -> np.random.Generator:
    """The Generator for one named stream of one repetition of a scenario."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(repetition), _key(name)]))


def child_seed(seed: int, repetition: int, name: str = "seed") -> int:
    """A derived integer seed (for code that wants a seed, not a Generator)."""
    ss = np.random.SeedSequence([int(seed), int(repetition), _key(name)])
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
