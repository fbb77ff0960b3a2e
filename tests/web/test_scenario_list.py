import pytest

from cloudsched_web.scenarios.models import Scenario

pytestmark = pytest.mark.django_db


def _make(owner, name, machines=3):
    config = {"family": "toy", "name": name, "seed": 1, "repetitions": 1, "algorithms": ["fcfs"],
              "datacenter": {"machines": machines}, "workload": {"jobs": 5, "mean_duration_s": 10.0},
              "params": {"sleep_s": 0.0}}  # fmt: skip
    return Scenario.objects.create(owner=owner, family="toy", name=name, config=config)


def test_it_searches_filters_and_sorts(alice_client, alice):
    _make(alice, "zeta load test")
    _make(alice, "alpha")
    page = alice_client.get("/?q=zeta").content.decode()
    assert "zeta load test" in page and ">alpha<" not in page
    page = alice_client.get("/?sort=name").content.decode()
    assert page.index(">alpha<") < page.index(">zeta load test<")
    page = alice_client.get("/?family=nope").content.decode()
    assert "No scenario matches" in page


def test_clone_copies_the_scenario_for_its_owner(alice_client, alice):
    original = _make(alice, "base")
    response = alice_client.post(f"/scenarios/{original.pk}/clone/")
    copy = Scenario.objects.exclude(pk=original.pk).get()
    assert response.url == f"/scenarios/{copy.pk}/"
    assert copy.name == "copy of base" and copy.config["datacenter"] == original.config["datacenter"]


def test_bob_cannot_clone_or_sweep_alices_scenario(client, bob, alice):
    original = _make(alice, "base")
    client.force_login(bob)
    assert client.post(f"/scenarios/{original.pk}/clone/").status_code == 404
    assert client.get(f"/scenarios/{original.pk}/sweep/").status_code == 404
    assert Scenario.objects.count() == 1
