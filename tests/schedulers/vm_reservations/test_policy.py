"""The placement interface (policy.py): named fits <order>:<fit>, the papers' first fit through the same
packer, and plug-in PM choices that run, or fail naming themselves when they over-fill a PM."""

from __future__ import annotations

import numpy as np
import pytest

import schedulers
from schedulers.plugins import PluginError
from schedulers.vm_reservations.bound import power_on_slots
from schedulers.vm_reservations.ffd import first_fit
from schedulers.vm_reservations.policy import FITS, NEW, ORDERS, Fit, order_of, pack
from tests.plugin_pkg import package_fixture

from .helpers import assert_valid_placement

SOURCE = """
import numpy as np

from schedulers.vm_reservations.policy import NEW, pm_choice


@pm_choice("last PM that fits", order="llif")
def last_fit(fit):
    ok = np.flatnonzero(fit.fits())
    return int(ok[-1]) if ok.size else NEW


@pm_choice("shortest first, best fit", order=lambda r: r.end - r.start)
def short_best(fit):
    ok = fit.fits()
    return int(np.where(ok, fit.peak, -1).argmax()) if ok.any() else NEW


@pm_choice("always PM 0")
def greedy(fit):
    return 0 if fit.peak.size else NEW


@pm_choice("answers a name")
def wordy(fit):
    return "pm-1"


@pm_choice("raises")
def raising(fit):
    raise KeyError("no such PM")
"""
ENTRY_POINTS = {f"vm_reservations.{n.replace('_', '-')}": n for n in ("last_fit", "short_best", "greedy", "wordy",
                                                                       "raising")}  # fmt: skip


def _random(n=120, g=8, seed=3):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 60, n)
    return s, s + rng.integers(1, 25, n), rng.integers(1, g + 1, n), g


def _scenario(*algorithms, n=150):
    return {"family": "vm_reservations", "seed": 5, "algorithms": list(algorithms),
            "workload": {"kind": "generator", "n_requests": n, "max_duration_slots": 40}}  # fmt: skip


@pytest.mark.parametrize("order", ORDERS)
def test_the_papers_first_fit_through_the_interface_is_the_packer_of_ffd_py(order):
    s, e, d, g = _random()
    o = order_of(order, s, e, d, g)
    a, b = pack(s, e, d, g, o, FITS["first"]), first_fit(s, e, d, g, o)
    assert a.pm.tolist() == b.pm.tolist()


def test_best_and_worst_fit_by_hand():
    """g = 4; PM 0 holds 3 units over the request, PM 1 holds 1, PM 2 holds 0: a 1-unit request goes to
    0 by best fit (least room), 2 by worst fit, 0 by first fit; a 2-unit one: 1 best, 2 worst."""
    occ = np.array([[3, 3], [1, 0], [0, 0]])  # two pieces of the interval, 2 and 3 slots
    fit = Fit(7, 0, 5, 1, 4, np.array([3, 1, 0]), occ, np.array([2, 3]))
    assert (FITS["first"](fit), FITS["best"](fit), FITS["worst"](fit)) == (0, 0, 2)
    assert fit.added_on_time().tolist() == [0, 3, 5]
    fit = Fit(7, 0, 5, 2, 4, np.array([3, 1, 0]), occ, np.array([2, 3]))
    assert (FITS["first"](fit), FITS["best"](fit), FITS["worst"](fit)) == (1, 1, 2)
    full = Fit(7, 0, 5, 2, 4, np.array([3, 3]), occ[:2], np.array([2, 3]))
    assert {f(full) for f in FITS.values()} == {NEW}


@pytest.mark.parametrize("fit", ["best", "worst"])
def test_named_fits_are_valid_placements(fit):
    s, e, d, g = _random(n=200, seed=11)
    assert ORDERS  # the loop below checks each
    for order in ORDERS:
        p = pack(s, e, d, g, order_of(order, s, e, d, g), FITS[fit])
        assert_valid_placement(p, s, e, d, g)
        assert p.migrations == 0


def test_worst_fit_spreads_and_powers_on_more_than_first_fit():
    s, e, d, g = _random(n=300, seed=5)
    o = order_of("ffd", s, e, d, g)
    first, worst = (power_on_slots(pack(s, e, d, g, o, FITS[f])) for f in ("first", "worst"))
    assert worst > first


def test_named_parts_are_algorithms_in_the_schema_and_run():
    enum = schedulers.schema("vm_reservations")["properties"]["algorithms"]["items"]["enum"]
    assert {"ffd:best", "llif:worst", "mffde:best"} <= set(enum)
    result = schedulers.run(_scenario("ffd", "ffd:best", "llif:worst"))
    assert [r["algorithm"] for r in result["runs"]] == ["ffd", "ffd:best", "llif:worst"]
    with pytest.raises(schedulers.ScenarioError, match=r"algorithms\[0\]"):
        schedulers.run(_scenario("ffd:middle"))


package = package_fixture(ENTRY_POINTS, SOURCE)


def test_a_plugin_placement_runs_beside_the_papers_and_the_result_names_it(package):
    result = schedulers.run(_scenario("llif", "last-fit", "short-best"))
    assert result["plugins"]["last-fit"]["name"] == "vm_reservations.last-fit"
    runs = {r["algorithm"]: r for r in result["runs"]}
    assert runs["last-fit"]["schedule"] != runs["llif"]["schedule"]
    for r in runs.values():  # the result page's capacity check reads these: every PM within g
        assert r["extra"]["capacities"] and r["metrics"]["migrations"] == 0


def test_a_plugin_that_overfills_a_pm_fails_naming_itself_and_the_request(package):
    with pytest.raises(PluginError, match=r"vm_reservations.greedy \(cloudsched-test-orders 0.3.1\) failed in its "
                       r"PM choice: invalid decision: request \d+ \(demand \d+\) on PM 0 would over-fill it"):  # fmt: skip
        schedulers.run(_scenario("greedy"))


def test_a_plugin_that_answers_no_pm_or_raises_fails_naming_itself(package):
    with pytest.raises(PluginError, match=r"vm_reservations.wordy .*answered 'pm-1'; allowed: NEW"):
        schedulers.run(_scenario("wordy"))
    with pytest.raises(PluginError, match=r"vm_reservations.raising .*PM choice: KeyError"):
        schedulers.run(_scenario("raising"))


def test_every_builtin_name_has_its_runner():
    """The registry of callables: every paper algorithm's name maps to its placement, every named part is an
    <order>:<fit> of the policy (vm_reservations), and backfill's names each have a runner."""
    from schedulers.backfill import RUNNERS
    from schedulers.backfill.model import ALGORITHMS as BACKFILL
    from schedulers.vm_reservations.model import ALGORITHMS
    from schedulers.vm_reservations.policy import FITS, ORDERS
    from schedulers.vm_reservations.simulator import PLACEMENTS

    papers = {a for a in ALGORITHMS if ":" not in a}
    assert papers and papers == set(PLACEMENTS)
    parts = [a.split(":") for a in ALGORITHMS if ":" in a]
    assert parts and all(o in ORDERS and f in FITS for o, f in parts)
    assert BACKFILL and set(RUNNERS) == set(BACKFILL)
