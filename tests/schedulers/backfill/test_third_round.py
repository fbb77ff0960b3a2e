"""The structures the passes now keep instead of recomputing equal a recomputation.

- ``sim.above[k]``: the fg jobs above bg job k, each with its CPU use (eq. 3.2 takes their max);
- ``sim.above_res``: REASY's background-head reservation terms (Σ size and the last estimated termination of
  the fg jobs above a bg job, Alg. 3 lines 14–17), kept until ``above[job]`` changes;
- the arrival path starts a job that fits at once without queueing it: after every pass a job is in J_q's
  structures (``wsz``, ``usz``, ``unfg``, ``n_waiting``) iff it waits (test_incremental.check_state, run here
  on the same passes), and the first start of such a job is its submit time.
"""

from __future__ import annotations

import pytest

from schedulers.backfill import keasy
from schedulers.backfill.keasy import simulate_two_tier
from schedulers.backfill.simulator import BG

from .helpers import config, instance
from .test_incremental import check_state


def _check_above_res(sim) -> None:
    for k, over in sim.above.items():  # each fg job above a bg job carries its CPU use (eq. 3.2's max)
        assert over == {f: sim.cpu[f] for f in over}, k
    for k, (total, last) in sim.above_res.items():
        assert sim.tier[k] == BG, f"cached reservation of job {k}, which is not in the background"
        jobs = sim.above[k]
        assert total == sum(sim.size_l[f] for f in jobs), k
        assert last == max((sim.fg_key[f][0] for f in jobs), default=float("-inf")), k


@pytest.mark.parametrize("model", ["feitelson", "jann"])
@pytest.mark.parametrize("record", [False, True])
def test_reasy_cached_background_reservations_equal_a_recomputation(monkeypatch, model, record):
    """After every pass of a crowded REASY run, each cached (Σ size, max estimated termination) equals the one
    computed from ``above`` afresh; and the cache is used (REASY pins bg heads at load 0.9)."""
    calls = {"checked": 0, "cached": 0}
    saved = {name: getattr(keasy, name) for name in ("foreground_pass", "arrival_pass", "background_pass")}

    def wrap(fn):
        def checked(sim, now, *args):
            fn(sim, now, *args)
            _check_above_res(sim)
            check_state(sim)
            calls["checked"] += 1
            calls["cached"] += len(sim.above_res)

        return checked

    for name, fn in saved.items():
        monkeypatch.setattr(keasy, name, wrap(fn))
    cfg = config(datacenter={"processors": 64}, workload={"model": model, "n_jobs": 800, "load": 0.9},
                 params={"record_schedule": record})  # fmt: skip
    inst = instance(cfg)
    res = simulate_two_tier(inst, "reasy", cfg.params)
    assert calls["checked"] > 800 and calls["cached"] > 0
    # a job deployed at its arrival (never queued) starts at its submit time, like any job that does not wait
    assert (res.first_start >= inst.submit).all()
    assert (res.first_start == inst.submit).sum() > 0
