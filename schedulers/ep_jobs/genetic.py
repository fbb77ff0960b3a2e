"""Genetic baselines of Section 6.1.3: MM-GA (Kumar & Verma [10]) and GSA (Gan et al. [11]).

A chromosome is a placement (one server index per task); its fitness is the OptRA JCT
(eq. 16), evaluated for the whole population at once: ``JCT = max_k S_k/B_k`` with
``S = A · W`` and ``W`` the per-server equivalent load, one sparse product per generation.

Readings where the papers are silent (all numbers are scenario parameters):

* Selection is binary tournament, crossover one-point with probability ``crossover_rate``,
  mutation moves each gene to a uniformly drawn server with probability ``mutation_rate``;
  the ``elite`` best survive unchanged. Population 50, 100 generations by default.
* MM-GA seeds the initial population with the Min-Min placement (the paper drops Max-Min),
  the rest random. GSA starts from a random population.
* GSA's simulated annealing runs ``sa_steps`` steps on every offspring of each generation:
  one random gene is moved, the change kept if better or with probability
  ``exp(-Δ / (T_g · JCT))`` where ``T_g = sa_t0 · sa_cooling^g`` is a relative temperature.
* Energy is ignored while evolving; REC (Alg. 2) repairs the best chromosome if it breaks
  ``E_MAX``, as the paper states for all baselines.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedulers.core.lazy import lazy
from schedulers.ep_jobs.instance import Instance
from schedulers.ep_jobs.minmin import min_min_placement
from schedulers.ep_jobs.tapra import Schedule, finish, rec

__all__ = ["GaParams", "fitness", "gsa", "mm_ga"]

_sparsetools = lazy("scipy.sparse._sparsetools")


@dataclass
class GaParams:
    population: int = 50
    generations: int = 100
    crossover_rate: float = 0.8
    mutation_rate: float = 0.02
    elite: int = 1
    sa_steps: int = 10
    sa_t0: float = 0.05
    sa_cooling: float = 0.95


def fitness(inst: Instance, pop: np.ndarray) -> np.ndarray:
    """OptRA JCT of every chromosome of ``pop`` (P × N): ``max_k S_k/B_k`` with ``S = A·W`` (eq. 16).

    ``W`` (servers × chromosomes) sums each chromosome's equivalent loads per server in task order;
    ``S`` is scipy's CSR product ``A @ W`` computed by the same kernel (``csr_matvecs``) called
    directly: the same sums in the same order, without the dispatch that cost more than the product
    on these small matrices (GSA evaluates its population six times a generation, OnTaPRA runs
    GSA for every waiting job at every iteration)."""
    plat = inst.platform
    p, n = pop.shape
    m, r = plat.n_servers, plat.B.size
    a = plat.A
    wt = np.bincount(
        (pop * p + np.arange(p)[:, None]).ravel(),
        weights=inst.leq[np.arange(n)[None, :], pop].ravel(),
        minlength=p * m,
    )  # W laid out (M, P): bin j·P + q, task order kept within each bin
    s = np.zeros((r, p))
    _sparsetools.csr_matvecs(r, m, p, a.indptr, a.indices, a.data, wt, s.ravel())
    return (s / plat.B[:, None]).max(axis=0)


def _offspring(pop: np.ndarray, fit: np.ndarray, m: int, prm: GaParams, rng: np.random.Generator) -> np.ndarray:
    p, n = pop.shape
    count = p - prm.elite
    a = rng.integers(0, p, size=(2, count))
    b = rng.integers(0, p, size=(2, count))
    mum = np.where(fit[a[0]] <= fit[a[1]], a[0], a[1])
    dad = np.where(fit[b[0]] <= fit[b[1]], b[0], b[1])
    cut = rng.integers(1, max(n, 2), size=count)
    cross = rng.random(count) < prm.crossover_rate
    take_dad = (np.arange(n)[None, :] >= cut[:, None]) & cross[:, None]
    kids = np.where(take_dad, pop[dad], pop[mum])
    mutate = rng.random(kids.shape) < prm.mutation_rate
    kids[mutate] = rng.integers(0, m, size=int(mutate.sum()))
    return kids


def _anneal(inst: Instance, kids: np.ndarray, temp: float, prm: GaParams, rng: np.random.Generator) -> None:
    cur = fitness(inst, kids)
    rows = np.arange(kids.shape[0])
    for _ in range(prm.sa_steps):
        gene = rng.integers(0, kids.shape[1], size=rows.size)
        old = kids[rows, gene].copy()
        kids[rows, gene] = rng.integers(0, inst.platform.n_servers, size=rows.size)
        new = fitness(inst, kids)
        delta = new - cur
        accept = (delta <= 0) | (rng.random(rows.size) < np.exp(np.minimum(0.0, -delta / max(temp, 1e-12) / cur)))
        kids[rows[~accept], gene[~accept]] = old[~accept]
        cur = np.where(accept, new, cur)


def _evolve(
    inst: Instance, pop: np.ndarray, prm: GaParams, rng: np.random.Generator, anneal: bool, progress
) -> np.ndarray:
    m = inst.platform.n_servers
    fit = fitness(inst, pop)
    every = max(1, prm.generations // 50)
    for g in range(prm.generations):
        if progress is not None and g % every == 0:
            progress(0.9 * g / prm.generations)
        order = np.argsort(fit, kind="stable")
        elite = pop[order[: prm.elite]]
        kids = _offspring(pop, fit, m, prm, rng)
        if anneal:
            _anneal(inst, kids, prm.sa_t0 * prm.sa_cooling**g, prm, rng)
        pop = np.concatenate([elite, kids])
        fit = fitness(inst, pop)
    return pop[int(np.argmin(fit))]


def _random_population(inst: Instance, size: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, inst.platform.n_servers, size=(size, inst.n_tasks)).astype(np.intp)


def mm_ga(inst: Instance, rng: np.random.Generator, prm: GaParams | None = None, progress=None) -> Schedule:
    """MM-GA: a GA whose initial population holds the Min-Min placement; REC at the end."""
    prm = prm or GaParams()
    pop = _random_population(inst, prm.population, rng)
    pop[0] = min_min_placement(inst)
    server, moves = rec(inst, _evolve(inst, pop, prm, rng, False, progress))
    return finish(inst, server, moves)


def gsa(inst: Instance, rng: np.random.Generator, prm: GaParams | None = None, progress=None) -> Schedule:
    """GSA: GA with simulated annealing on each generation's offspring; REC at the end."""
    prm = prm or GaParams()
    pop = _random_population(inst, prm.population, rng)
    server, moves = rec(inst, _evolve(inst, pop, prm, rng, True, progress))
    return finish(inst, server, moves)
