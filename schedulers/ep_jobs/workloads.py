"""Workload and data-centre generators of Sections 6.1.1 (offline) and 6.2.1 (online).

Readings where the paper is silent or ambiguous:

* ``U(0, x]`` draws use ``x·(1 − u)`` with ``u ~ U[0, 1)`` so zero never occurs.
* Online task counts: the paper gives a Weibull with "scale parameter A = 0.5 and scale
  parameter B = 0.8" citing Leemis [39]. Leemis writes the Weibull survivor function as
  ``exp(−(λx)^κ)`` with λ a *rate-like* scale; we read A = λ = 0.5 (so numpy scale 1/A = 2)
  and B = κ = 0.8 (shape), and take ``n = min(70, max(1, ⌈W⌉))``. This gives a mean of about
  2.8 tasks, most jobs with 1–3 tasks and a long tail up to ~30, like the Google trace the
  paper cites. (Reading 0.5 as the numpy scale would make 83% of jobs single-task; reading the
  Weibull as a fraction of 70 would offer ~5× the data centre's capacity.) Both parameters are
  in the scenario.
* Online ``E_MAX``: the factor ``u ~ U[emax_low, emax_high]`` is drawn once per job at arrival
  (so every scheduler sees the same limits); ``E_MAX = u·α·Σ Load`` is applied when the job
  is scheduled, over the servers then available.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedulers.core.lazy import lazy
from schedulers.ep_jobs.instance import Instance, Platform, fattree_platform

sp = lazy("scipy.sparse")

__all__ = ["OnlineJob", "build_platform", "offline_instance", "online_jobs"]


def _open_closed(rng: np.random.Generator, low: float, high: float, size) -> np.ndarray:
    return high - (high - low) * rng.random(size)


def build_platform(dc, rng: np.random.Generator) -> Platform:
    """The data centre of a scenario: a generated FatTree or explicit servers + constraints."""
    if dc.kind == "fattree":
        m = dc.pods**3 // 4
        cap = _open_closed(rng, dc.capacity_low, dc.capacity_high, m)
        return fattree_platform(dc.pods, cap, dc.beta_rack, dc.beta_pod, dc.beta_dc)
    cap = np.asarray(dc.capacities, dtype=float)
    m = cap.size
    rows, cols, vals, bounds = [np.arange(m)], [np.arange(m)], [np.ones(m)], [cap]
    for k, con in enumerate(dc.constraints):
        rows.append(np.full(len(con.servers), m + k))
        cols.append(np.asarray(con.servers))
        vals.append(np.asarray(con.coefficients if con.coefficients is not None else np.ones(len(con.servers))))
        bounds.append([con.bound])
    a = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(m + len(dc.constraints), m)
    )
    names = [f"server{j}" for j in range(m)] + [f"constraint{k}" for k in range(len(dc.constraints))]
    return Platform(
        capacity=cap, A=a, B=np.concatenate(bounds), servers=[f"s{j}" for j in range(m)], constraint_names=names
    )


def _efficiency(wl, rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    return rng.uniform(wl.eff_low, 1.0, size=(n, m)) if wl.eff_low < 1 else np.ones((n, m))


def offline_instance(wl, plat: Platform, rng: np.random.Generator) -> Instance:
    """The single job of Section 6.1.1 (or an inline job) on ``plat``."""
    m = plat.n_servers
    if wl.kind == "generator":
        loads = _open_closed(rng, 0.0, wl.load_high, wl.tasks)
        lam = _efficiency(wl, rng, wl.tasks, m)
        e_max = None
    else:
        loads = np.array([t.load for t in wl.tasks], dtype=float)
        lam = _efficiency(wl, rng, loads.size, m)
        for i, task in enumerate(wl.tasks):
            if task.efficiency is not None:
                lam[i] = task.efficiency
        e_max = wl.e_max
    if e_max is None:
        e_max = rng.uniform(wl.emax_low, wl.emax_high) * wl.alpha * loads.sum()
    return Instance(plat, loads, lam, wl.alpha, float(e_max))


@dataclass
class OnlineJob:
    """An arriving job: loads, efficiencies on every server, and its E_MAX factor."""

    id: int
    arrival: float
    loads: np.ndarray
    lam: np.ndarray  # (n, M) over all servers of the data centre
    e_factor: float

    @property
    def total_load(self) -> float:
        return float(self.loads.sum())


def _arrivals(wl, rng: np.random.Generator) -> np.ndarray:
    """Poisson arrivals in ``[0, arrival_end_s]``, at most ``max_jobs``: never more than 2·max_jobs draws."""
    expected = wl.arrival_rate * wl.arrival_end_s
    size = int(min(expected + 10 * np.sqrt(expected) + 20, wl.max_jobs))
    times = np.cumsum(rng.exponential(1.0 / wl.arrival_rate, size))
    while times[-1] < wl.arrival_end_s and times.size < wl.max_jobs:
        times = np.concatenate([times, times[-1] + np.cumsum(rng.exponential(1.0 / wl.arrival_rate, size))])
    return times[times <= wl.arrival_end_s][: wl.max_jobs]


def online_jobs(wl, m: int, rng: np.random.Generator) -> list[OnlineJob]:
    """Jobs of Section 6.2.1 (Poisson arrivals, Weibull task counts) or an inline list."""
    if wl.kind == "online_generator":
        arrivals = _arrivals(wl, rng)
        counts = np.minimum(
            wl.max_tasks, np.maximum(1, np.ceil(wl.task_count_scale * rng.weibull(wl.task_count_shape, arrivals.size)))
        ).astype(int)
        loads = [_open_closed(rng, 0.0, wl.load_high, c) for c in counts]
    else:
        order = sorted(range(len(wl.jobs)), key=lambda k: wl.jobs[k].arrival)
        arrivals = np.array([wl.jobs[k].arrival for k in order], dtype=float)
        loads = [np.asarray(wl.jobs[k].loads, dtype=float) for k in order]
    jobs = []
    for k, (t, ld) in enumerate(zip(arrivals, loads, strict=True)):
        lam = _efficiency(wl, rng, ld.size, m)
        jobs.append(OnlineJob(k, float(t), ld, lam, float(rng.uniform(wl.emax_low, wl.emax_high))))
    return jobs
