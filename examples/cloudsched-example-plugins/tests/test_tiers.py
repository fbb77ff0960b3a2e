"""The example tier choice: its answers by hand, and a run beside KEASY and MEASY through cloudsched's front door."""

from cloudsched_example_plugins.tiers import thrifty

import schedulers
from schedulers.backfill.policy import KILL, MIGRATE, TierChoice


def test_a_job_that_has_done_less_than_a_migration_costs_restarts():
    assert isinstance(thrifty, TierChoice)
    assert thrifty.deploy(100.0, 3, 8, 3600.0, 5.0, 20.0) == KILL  # 5 s of work lost against 20 s of migration
    assert thrifty.deploy(100.0, 3, 8, 3600.0, 60.0, 20.0) == MIGRATE


def test_it_runs_as_a_two_tier_algorithm_when_installed():
    """Needs the package installed (pip install -e): then the entry point makes it a backfill algorithm."""
    scenario = {"family": "backfill", "algorithms": ["keasy", "measy", "measy-thrifty"],
                "datacenter": {"processors": 64}, "workload": {"n_jobs": 2000, "load": 0.9,
                "feitelson": {"max_size": 64}}, "params": {"record_schedule": False, "migration_cost_s": 300.0}}  # fmt: skip
    result = schedulers.run(scenario)
    assert result["plugins"]["measy-thrifty"]["package"] == "cloudsched-example-plugins"
    keasy, measy, thrifty_run = (r["metrics"] for r in result["runs"])
    assert thrifty_run["kills"] > 0 and thrifty_run["migrations"] > 0  # both moves, chosen per job

    def waste(m):  # work lost to kills + extra work of migrations (s)
        return m["wasted_work_s"] + 300.0 * m["migrations"]

    assert waste(thrifty_run) < min(waste(keasy), waste(measy))  # 28,299 s against 272,785 and 59,700 here
