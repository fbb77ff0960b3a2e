"""Synthetic workload models of Section 3.1: Feitelson 1996 (FWload) and Jann 1997 (JWload), plus Lublin 2003.

Both return ``(submit_s, size, runtime_s)`` numpy arrays sorted by submit time.

Feitelson 1996 (docs/workload-models.md §1). Confirmed structure: a harmonic size law with
extra weight on powers of two and small sizes, a two-branch hyper-exponential
runtime whose branch probability grows linearly with size, repeated runs with
a Zipf count, Poisson arrivals. The constants are UNCONFIRMED; our defaults
(``FeitelsonParams``) are calibrated to what the paper reports for FWload:
Table 1's size histogram and the average parallelism 23.4 need a harmonic
order of 1.27 (order 1.5 gives a mean of ~19), power-of-two boost 2 and serial
factor 0.7; the runtime branch means (400 s / 12,000 s, long-branch
probability 0.1 → 0.9) give an average runtime of ~2,600 s (paper: 2,606.6 s).
Reading: repeated runs are open-loop — run k+1 is submitted when run k would
have ended on a dedicated machine (submit + runtime), with the same size and
runtime; the paper's closed feedback loop would make the workload depend on
the scheduler.

Jann 1997 (docs/workload-models.md §2). The published parameter table was not available;
``JANN_CTC_TABLE`` is OUR refit of the hyper-Erlang of common order (first
three moments, closed form of docs/workload-models.md §2.3) on the first 78 days of the
cleaned CTC-SP2 log, per size range. Each range is an independent renewal
stream of inter-arrivals; sizes are uniform inside the range; runtimes come
from the range's hyper-Erlang.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["JANN_CTC_TABLE", "feitelson", "fit_hyper_erlang", "fit_jann_table", "hyper_erlang", "jann", "lublin"]


def feitelson(n_jobs: int, machine: int, prm, rng: np.random.Generator):
    """FWload: ``n_jobs`` jobs for a machine of ``machine`` processors (see module docstring)."""
    top = prm.max_size or machine
    sizes = np.arange(1, top + 1)
    weights = sizes.astype(float) ** -prm.size_exponent
    pow2 = (sizes & (sizes - 1)) == 0
    weights[pow2 & (sizes > 1)] *= prm.pow2_boost
    weights[0] *= prm.serial_factor
    weights /= weights.sum()
    # draw distinct jobs, then expand each into its repeated runs
    ranks = np.arange(1, prm.max_repeats + 1, dtype=float) ** -prm.repeat_exponent
    ranks /= ranks.sum()
    n_base = max(1, int(n_jobs / float(np.arange(1, prm.max_repeats + 1) @ ranks)) + 8)
    while True:
        reps = rng.choice(prm.max_repeats, size=n_base, p=ranks) + 1
        if reps.sum() >= n_jobs:
            break
        n_base = int(n_base * 1.2) + 8
    size = rng.choice(sizes, size=n_base, p=weights)
    frac = (size - 1) / max(top - 1, 1)
    p_long = prm.p_long_min + (prm.p_long_max - prm.p_long_min) * frac
    mean = np.where(rng.random(n_base) < p_long, prm.mean_long_s, prm.mean_short_s)
    run = np.maximum(1.0, np.round(rng.exponential(mean)))
    first = np.cumsum(rng.exponential(prm.mean_interarrival_s, size=n_base))
    # expand repeats: run k of a job starts k·runtime after its first submit
    idx = np.repeat(np.arange(n_base), reps)
    k = np.arange(idx.size) - np.repeat(np.cumsum(reps) - reps, reps)
    submit = first[idx] + k * run[idx]
    order = np.argsort(submit, kind="stable")[:n_jobs]
    submit = submit[order]
    return submit - submit[0], size[idx][order].astype(np.int64), run[idx][order]


def hyper_erlang(rng: np.random.Generator, count: int, p: float, lam1: float, lam2: float, stages: int) -> np.ndarray:
    """``count`` draws of the hyper-Erlang of common order (docs/workload-models.md §2.2)."""
    lam = np.where(rng.random(count) < p, lam1, lam2)
    return rng.gamma(stages, 1.0 / lam)


def fit_hyper_erlang(values: np.ndarray, max_stages: int = 10) -> tuple[float, float, float, int] | None:
    """Three-moment fit (p, λ1, λ2, n) of docs/workload-models.md §2.3; ``None`` if no order ≤ ``max_stages`` fits."""
    x = np.asarray(values, dtype=float)
    m1, m2, m3 = (float(np.mean(x**k)) for k in (1, 2, 3))
    for n in range(1, max_stages + 1):
        u1, u2, u3 = m1 / n, m2 / (n * (n + 1)), m3 / (n * (n + 1) * (n + 2))
        if u2 <= u1 * u1:
            continue
        s = (u3 - u1 * u2) / (u2 - u1 * u1)
        q = (u1 * u3 - u2 * u2) / (u2 - u1 * u1)
        disc = s * s - 4 * q
        if disc < 0:
            continue
        a, b = (s + math.sqrt(disc)) / 2, (s - math.sqrt(disc)) / 2
        if a <= 0 or b <= 0 or a == b:
            continue
        p = (u1 - b) / (a - b)
        if 0 <= p <= 1:
            return p, 1 / a, 1 / b, n
    return None


# (size_lo, size_hi, interarrival (p, λ1, λ2, n), runtime (p, λ1, λ2, n)) — refit on CTC-SP2, see docstring.
# Produced by fit_jann_table(CTC-SP2 log, days=78); rates in 1/s. The 17,702 fitted jobs have a
# mean size of 10.7 and a mean runtime of 10,905 s (paper's JWload: 10.5 and 11,267 s).
JANN_CTC_TABLE: tuple[tuple[int, int, tuple[float, float, float, int], tuple[float, float, float, int]], ...] = (
    (1, 1, (0.0692713, 0.000148267, 0.00231103, 1), (0.389561, 0.000118594, 0.00681611, 4)),
    (2, 2, (0.0959269, 3.61835e-05, 0.00087537, 1), (0.310283, 0.000175829, 0.0401569, 8)),
    (3, 4, (0.13028, 6.2287e-05, 0.00133349, 1), (0.209249, 0.000142801, 0.0319657, 5)),
    (5, 8, (0.218439, 7.18094e-05, 0.00163737, 1), (0.223609, 9.56015e-05, 0.00303995, 2)),
    (9, 16, (0.107424, 6.7173e-05, 0.000714534, 1), (0.317853, 0.000112577, 0.025523, 3)),
    (17, 32, (0.125242, 3.37937e-05, 0.000378887, 1), (0.318663, 0.000104521, 0.0214318, 3)),
    (33, 64, (0.445172, 5.55015e-05, 0.00158918, 1), (0.415438, 0.000100951, 0.00931621, 3)),
    (65, 128, (0.503369, 3.34093e-05, 0.00047864, 2), (0.301806, 0.000138658, 0.015377, 6)),
    (129, 256, (0.169136, 5.78521e-06, 0.000278655, 2), (0.349918, 0.000293075, 0.00763869, 1)),
    (257, 338, (0.147921, 1.6706e-06, 1.76374e-05, 1), (0.206115, 0.000143892, 0.0315677, 6)),
)

JANN_RANGES = ((1, 1), (2, 2), (3, 4), (5, 8), (9, 16), (17, 32), (33, 64), (65, 128), (129, 256), (257, 338))


def fit_jann_table(submit, size, runtime, days: float = 78.0, ranges=JANN_RANGES):
    """Refit the table from a log (docs/workload-models.md §2.3): per size range, inter-arrivals and runtimes."""
    keep = (submit >= 0) & (runtime > 0) & (size > 0) & (submit <= days * 86400)
    order = np.argsort(submit[keep], kind="stable")
    sub, sz, run = submit[keep][order], size[keep][order], runtime[keep][order]
    rows = []
    for lo, hi in ranges:
        m = (sz >= lo) & (sz <= hi)
        ia, rt = fit_hyper_erlang(np.maximum(np.diff(sub[m]), 1.0), 20), fit_hyper_erlang(run[m], 20)
        if ia is not None and rt is not None:
            rows.append((lo, hi, ia, rt))
    return tuple(rows)


def jann(n_jobs: int, machine: int, prm, rng: np.random.Generator, table=None):
    """JWload: merge of one renewal stream per size range (see module docstring)."""
    table = table or JANN_CTC_TABLE
    top = min(prm.max_size or machine, machine)
    ranges = [(lo, min(hi, top), ia, rt) for lo, hi, ia, rt in table if lo <= top]
    rates = [1.0 / (ia[3] * (ia[0] / ia[1] + (1 - ia[0]) / ia[2])) for _, _, ia, _ in ranges]
    horizon = 1.1 * n_jobs / sum(rates)
    while True:
        subs, sizes, runs = [], [], []
        for (lo, hi, ia, rt), rate in zip(ranges, rates, strict=True):
            count = int(horizon * rate * 1.2 + 10 * math.sqrt(horizon * rate + 1) + 10)
            t = np.cumsum(hyper_erlang(rng, count, *ia) * prm.interarrival_scale)
            t = t[t <= horizon * prm.interarrival_scale]
            subs.append(t)
            sizes.append(rng.integers(lo, hi + 1, size=t.size))
            runs.append(np.maximum(1.0, np.round(hyper_erlang(rng, t.size, *rt))))
        submit = np.concatenate(subs)
        if submit.size >= n_jobs:
            break
        horizon *= 1.5
    order = np.argsort(submit, kind="stable")[:n_jobs]
    submit = submit[order]
    return submit - submit[0], np.concatenate(sizes)[order].astype(np.int64), np.concatenate(runs)[order]


# Lublin & Feitelson 2003 reference constants (docs/workload-models.md §5.1): batch and interactive classes.
LUBLIN = {
    "batch": {"serial_prob": 0.2927, "pow2_prob": 0.6686, "ulow": 1.2, "umed": 5.0, "uhi": 7.0, "uprob": 0.875,
              "a1": 6.57, "b1": 0.823, "a2": 639.1, "b2": 0.0156, "pa": -0.003, "pb": 0.6986,
              "aarr": 6.0415, "barr": 0.8531, "anum": 6.1271, "bnum": 5.2740, "arar": 1.0519},
    "interactive": {"serial_prob": 0.1541, "pow2_prob": 0.625, "ulow": 1.0, "umed": 3.0, "uhi": 5.5, "uprob": 0.705,
                    "a1": 3.8351, "b1": 0.6605, "a2": 7.073, "b2": 0.6856, "pa": -0.0118, "pb": 0.9156,
                    "aarr": 6.5510, "barr": 0.6621, "anum": 8.9186, "bnum": 3.6680, "arar": 0.9797},
}  # fmt: skip


def _capped_gamma(rng: np.random.Generator, shape: float, scale: float, cap: float, count: int) -> np.ndarray:
    g = rng.gamma(shape, scale, count)
    while (bad := g > cap).any():
        g[bad] = rng.gamma(shape, scale, int(bad.sum()))
    return g


def _lublin_class(c: dict, count: int, machine: int, rng: np.random.Generator):
    from scipy.stats import gamma as gamma_dist

    uhi = min(c["uhi"], math.log2(machine))
    umed = min(c["umed"], uhi - 1.5) if uhi < c["uhi"] else c["umed"]
    u = rng.random(count)
    par = np.where(rng.random(count) < c["uprob"], rng.uniform(c["ulow"], umed, count), rng.uniform(umed, uhi, count))
    par = np.where(u <= c["serial_prob"] + c["pow2_prob"], np.round(par), par)
    nodes = np.where(u <= c["serial_prob"], 1, np.clip(np.round(2.0**par), 1, machine)).astype(np.int64)
    p = np.clip(c["pa"] * nodes + c["pb"], 0, 1)
    g = np.where(rng.random(count) < p, _capped_gamma(rng, c["a1"], c["b1"], 12, count),
                 _capped_gamma(rng, c["a2"], c["b2"], 12, count))  # fmt: skip
    runtime = np.maximum(1.0, np.floor(np.exp(g)))
    i = np.arange(11, 59)
    weights = np.zeros(48)
    weights[(i - 1) % 48] = gamma_dist.cdf(i + 0.5, c["anum"], scale=c["bnum"]) - gamma_dist.cdf(
        i - 0.5, c["anum"], scale=c["bnum"]
    )
    weights = (weights / weights.mean()).tolist()
    gaps = np.exp(_capped_gamma(rng, c["aarr"] * c["arar"], c["barr"], 13, count)) / 1800.0
    submit = np.empty(count)
    bucket, points, rem, clock = 0, 0.0, 0.0, 0.0
    for k, gap in enumerate(gaps.tolist()):
        points += gap
        dt = 0.0
        while points > weights[bucket]:
            points -= weights[bucket]
            bucket = (bucket + 1) % 48
            dt += 1800.0
        new_rem = points / weights[bucket]
        clock += dt + 1800.0 * (new_rem - rem)
        rem = new_rem
        submit[k] = clock
    return submit, nodes, runtime


def lublin(n_jobs: int, machine: int, prm, rng: np.random.Generator):
    """Lublin & Feitelson 2003 (docs/workload-models.md §5): a batch and an interactive stream merged by time.

    Reading for other machine sizes: UHi = min(its default, log2 N) (the code's advice) and UMed is
    kept ≥ 1.5 below it; ``prm.interactive`` switches the interactive class off.
    """
    parts = [_lublin_class(LUBLIN["batch"], n_jobs, machine, rng)]
    if prm.interactive:
        parts.append(_lublin_class(LUBLIN["interactive"], n_jobs, machine, rng))
    submit = np.concatenate([q[0] for q in parts])
    order = np.argsort(submit, kind="stable")[:n_jobs]
    submit = submit[order]
    size = np.concatenate([q[1] for q in parts])[order]
    run = np.concatenate([q[2] for q in parts])[order]
    return submit - submit[0], size, run
