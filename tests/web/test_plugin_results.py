"""A result produced by a plug-in algorithm names the plug-in on its stamp, and stays readable once the
plug-in package is removed."""

import pytest

import schedulers
from cloudsched_web.results import queries
from cloudsched_web.runs.models import Run
from cloudsched_web.scenarios.models import Scenario
from schedulers import plugins
from schedulers.plugins import PluginError
from tests.plugin_pkg import installed

pytestmark = pytest.mark.django_db


def test_a_removed_plugins_result_page_still_renders_and_names_it(alice, alice_client, tmp_path):
    queries.clear_cache()
    config = {"family": "backfill", "name": "plug", "algorithms": ["easy", "widest"],
              "datacenter": {"processors": 32}, "workload": {"n_jobs": 60, "feitelson": {"max_size": 32}}}  # fmt: skip
    with installed(tmp_path / "site"):
        scenario = Scenario.objects.create(owner=alice, family="backfill", name="plug", config=config)
        run = Run.objects.create(scenario=scenario, config=config, status=Run.Status.SUCCEEDED, progress=1.0)
        run.store_result(schedulers.run(config))
        run.save()
    assert "widest" not in schedulers.get_family("backfill").algorithms
    response = alice_client.get(f"/runs/{run.pk}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "backfill.widest" in page and "cloudsched-test-orders 0.3.1" in page
    assert response.context["stamp"]["plugins"]["widest"]["sha256"]


def test_the_wizard_marks_plugin_algorithms_from_the_server(alice_client, tmp_path):
    with installed(tmp_path / "site"):
        response = alice_client.get("/scenarios/new/?family=backfill")
    page = response.content.decode()
    labels = response.context["wizard"]["algorithms"]
    assert labels["widest"] == "[plug-in, cloudsched-test-orders 0.3.1] widest job first"
    assert labels["easy"].startswith("EASY")
    assert 'id="plugin-note"' in page and "<code>widest</code> from cloudsched-test-orders 0.3.1" in page
    after = alice_client.get("/scenarios/new/?family=backfill").content.decode()
    assert "<code>widest</code>" not in after
    # the note stays only for backfill plug-ins installed in this environment (none in a fresh clone)
    assert ('id="plugin-note"' in after) == bool(plugins.discover().get("backfill"))


def test_the_capacity_check_runs_on_a_plugins_schedule_and_would_report_an_over_full_pm(tmp_path):
    """vm_reservations: a named part's schedule passes the result page's checks like the papers'; the simulator
    refuses a plug-in's over-filling choice before it happens, and were one placed (here by calling the packer
    with the raw choice, as no run can), the same capacity check reports the PM."""
    import numpy as np

    from cloudsched_web.results.checks import validity
    from schedulers.core.validity import capacity
    from schedulers.vm_reservations import workloads
    from schedulers.vm_reservations.model import Scenario as VmScenario
    from schedulers.vm_reservations.output import schedule_of
    from schedulers.vm_reservations.policy import order_of, pack

    config = {"family": "vm_reservations", "algorithms": ["ffd", "pm-zero"],
              "workload": {"kind": "generator", "n_requests": 60}}  # fmt: skip
    with installed(tmp_path / "site"):
        doc = schedulers.run(config | {"algorithms": ["ffd", "ffd:worst"]})  # pm-zero itself fails its run
        with pytest.raises(PluginError, match=r"vm_reservations\.pm-zero .*would over-fill"):
            schedulers.run(config | {"algorithms": ["pm-zero"]})
        partly = schedulers.run(config)  # beside ffd it fails its own units, ffd's stay
        assert {f["algorithm"] for f in partly["failures"]} == {"pm-zero"}
        assert "would over-fill" in partly["failures"][0]["error"]
        assert [r["algorithm"] for r in partly["runs"]] == ["ffd"]
    assert validity(doc)["ok"] and "capacity per resource" in validity(doc)["ran"]
    cfg = VmScenario.model_validate(config | {"algorithms": ["ffd"]})
    inst = workloads.build_instance(cfg, np.random.default_rng(1))
    placements = [pack(p.s, p.e, p.d, p.g, order_of("ffd", p.s, p.e, p.d, p.g), lambda fit: 0 if fit.peak.size else -1)
                  for p in inst.pools]  # fmt: skip
    schedule, _ = schedule_of(inst, placements, cfg.datacenter.slot_minutes)
    caps = {f"{pool.name}-1": pool.g / pool.scale for pool in inst.pools}
    check = capacity({"schedule": schedule, "extra": {"capacities": caps}}, {})
    assert check["status"] == "fail" and "-1: " in check["detail"]


def test_plugins_left_out_are_shown_on_the_wizard_the_admin_the_api_and_the_logs(alice_client, admin_client, tmp_path,
                                                                                  caplog):  # fmt: skip
    import logging

    from schedulers import plugins

    bad = {"backfill.widest": "widest", "backfill.number": "not_an_order", "backfill.gone": "nope_module:x"}
    with installed(tmp_path / "site", entry_points=bad):
        wizard = alice_client.get("/scenarios/new/?family=backfill").content.decode()
        admin = admin_client.get("/admin/").content.decode()
        api = {f["name"]: f for f in alice_client.get("/api/v1/families").json()}
        with caplog.at_level(logging.WARNING):
            assert plugins.log_left_out(logging.getLogger("cloudsched_web")) == 2
    for page in (wizard, admin):
        assert 'id="plugins-left-out"' in page
        assert "backfill.number = cloudsched_test_orders:not_an_order" in page and "QueueOrder" in page
        assert "backfill.gone = nope_module:x" in page and "ModuleNotFoundError" in page
    left = {b["name"]: b["error"] for b in api["backfill"]["plugins_left_out"]}
    assert set(left) == {"backfill.number", "backfill.gone"} and api["federated"]["plugins_left_out"] == []
    assert sum("plug-in left out: backfill." in r.getMessage() for r in caplog.records) == 2
    assert 'id="plugins-left-out"' not in alice_client.get("/scenarios/new/?family=backfill").content.decode()
