from __future__ import annotations

import numpy as np
import pytest

from schedulers.ep_jobs.instance import Instance, fattree_platform


def random_instance(n: int, pods: int, seed: int, slack: float | None = None) -> Instance:
    """A Section 6.1.1 instance: FatTree, capacities U(0, 10], loads U(0, 3600], λ U[0.1, 1]."""
    rng = np.random.default_rng(seed)
    m = pods**3 // 4
    plat = fattree_platform(pods, 10 - 10 * rng.random(m))
    loads = 3600 - 3600 * rng.random(n)
    lam = rng.uniform(0.1, 1.0, (n, m))
    total = loads.sum()
    e_max = total * (1 + (slack if slack is not None else 0.1 * rng.random()))
    return Instance(plat, loads, lam, 1.0, e_max)


@pytest.fixture
def small_instance() -> Instance:
    return random_instance(12, 4, seed=7)
