"""One way to pick a trace: the wizard lists the traces the user may use (their uploads and the
imported logs: name, jobs, machine, span, size), searchable, with the upload beside it; no hand-typed
``sha256:`` reference, pasted text or server path; choosing a trace offers its machine as the data centre
size; a refused upload keeps the other fields and shows its error, with the line, at the trace; families
that read no trace show no trace input."""

import gzip

import pytest

import schedulers
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.traces.models import Trace
from cloudsched_web.traces.services import store
from tests.browser import test_accessibility as a11y
from tests.browser.conftest import shoot
from tests.browser.test_run_flow import _login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
FAMILIES = schedulers.all_families()
axe_page = a11y.axe_page  # the accessibility tests' page with axe-core injectable (a fixture)


def _swf(header, sizes):
    lines = [header] + [f"{i} {i * 10} 0 100 {s} -1 -1 {s} 200 -1 1 1 1 -1 1 -1 -1 -1" for i, s in enumerate(sizes, 1)]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def stored(alice, bob):
    mine, _ = store(_swf("; MaxNodes: 96", [4, 8, 120]), "my cluster log", owner=alice)
    ctc, _ = store(_swf("; MaxProcs: 338", [300, 338, 2]), "CTC-SP2 sample", imported=True)
    theirs, _ = store(_swf("; MaxProcs: 7", [1, 2]), "bob's private log", owner=bob)
    return {"mine": mine, "ctc": ctc, "theirs": theirs}


def _rows(page):
    return page.evaluate("() => [...document.querySelectorAll('.trace-list tbody tr')].filter((r) => !r.hidden)"
                         ".map((r) => r.querySelector('label').textContent)")  # fmt: skip


@pytest.mark.skipif("backfill" not in FAMILIES, reason="needs backfill")
def test_a_trace_is_picked_from_the_list_and_its_machine_is_offered(page, live_server, stored):
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.click("[data-tab='workload:trace']")
    # No reference, text or path to type: one list, the upload beside it.
    for key in ("trace", "swf", "path"):
        assert page.locator(f"#w-workload\\.{key}").count() == 0
    assert page.locator(".trace-picker #id_trace_file").is_visible()
    assert sorted(_rows(page)) == ["CTC-SP2 sample", "my cluster log"]  # never another user's trace
    assert "All 2 traces" in page.inner_text("#w-trace-count")
    row = page.locator("tr", has_text="my cluster log").inner_text()
    assert "96 (header MaxNodes)" in row and "120" in row  # machine and largest job
    page.fill("#w-trace-search", "ctc")
    assert _rows(page) == ["CTC-SP2 sample"] and "1 of 2 traces match" in page.inner_text("#w-trace-count")
    example = page.input_value("#w-name")
    assert "Feitelson" in example  # the example names its generated workload
    page.check("tr:has-text('CTC-SP2 sample') input[type=radio]")
    assert page.input_value("#w-name") == "CTC-SP2 sample: 3 jobs from the trace"  # named after the trace now
    machine = page.inner_text("#w-trace-machine")
    assert "338 processors (header MaxProcs)" in machine and "largest job needs 338" in machine
    assert "refused unless" in machine  # the default 64 processors are narrower than its widest job
    page.click("#w-trace-use-size")
    assert page.input_value("#w-datacenter\\.processors") == "338"
    assert "refused unless" not in page.inner_text("#w-trace-machine")
    page.fill("#w-trace-search", "cluster")  # the chosen trace stays listed, and the count says so
    assert sorted(_rows(page)) == ["CTC-SP2 sample", "my cluster log"]
    assert page.inner_text("#w-trace-count") == "1 of 2 traces match “cluster”; the chosen one stays listed."
    page.set_viewport_size({"width": 1280, "height": 900})
    shoot(page, "wizard-trace-picker")
    page.click("#save-button")
    page.wait_for_selector("#run-button")
    assert Scenario.objects.get().name == "CTC-SP2 sample: 3 jobs from the trace"
    config = Scenario.objects.get().config
    assert config["workload"]["trace"] == stored["ctc"].ref and config["workload"]["swf"] == ""
    assert config["datacenter"]["processors"] == 338
    # Editing it again: the saved trace is the chosen row.
    page.goto(f"{live_server.url}/scenarios/{Scenario.objects.get().pk}/edit/")
    assert page.is_checked("tr:has-text('CTC-SP2 sample') input[type=radio]")


@pytest.mark.skipif("backfill" not in FAMILIES, reason="needs backfill")
def test_a_new_trace_is_uploaded_beside_the_list(page, live_server, alice, tmp_path):
    trace = tmp_path / "tiny.swf.gz"
    trace.write_bytes(gzip.compress(_swf("; MaxProcs: 8", [4, 4, 2])))
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.click("[data-tab='workload:trace']")
    assert "No stored traces yet" in page.inner_text("#w-trace-count")
    page.set_input_files(".trace-picker #id_trace_file", str(trace))
    assert "“tiny.swf.gz” is stored among your traces when you save" in page.inner_text("#w-trace-upload-note")
    page.fill("#w-datacenter\\.processors", "8")
    assert page.is_visible("#w-trace-upload-note")  # still said after another field changed
    page.click("#save-button")
    page.wait_for_selector("#run-button")
    stored = Trace.objects.get()
    workload = Scenario.objects.get().config["workload"]
    assert workload["kind"] == "trace" and workload["trace"] == stored.ref
    assert (stored.jobs, stored.processors, stored.processors_from, stored.largest_job) == (3, 8, "MaxProcs", 4)
    summary = page.inner_text("#trace-summary")
    assert "8 (header MaxProcs)" in summary and "4 processors" in summary
    assert "1 20 0 100" not in page.content()  # a line of the trace: pages show its summary, never its text


@pytest.mark.skipif("backfill" not in FAMILIES, reason="needs backfill")
def test_a_refused_upload_keeps_the_other_fields_and_names_the_line_at_the_trace(page, live_server, alice, tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 8\n1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n2 3 4\n")
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.fill("#w-name", "keep me")
    page.fill("#w-datacenter\\.processors", "77")
    page.click("[data-tab='workload:trace']")
    page.fill("#w-workload\\.max_jobs", "123")
    page.set_input_files(".trace-picker #id_trace_file", str(bad))
    page.click("#save-button")
    page.wait_for_selector("#trace-file-errors")
    assert not Scenario.objects.exists() and not Trace.objects.exists()
    error = page.inner_text(".trace-picker #trace-file-errors")  # at the trace, beside the list
    assert "line 3" in error and "18 fields" in error and "trace_file" not in error  # plain words at the field
    assert page.input_value("#w-name") == "keep me" and page.input_value("#w-datacenter\\.processors") == "77"
    assert page.locator("#w-workload\\.max_jobs").is_visible()  # the trace tab is still the one shown
    assert page.input_value("#w-workload\\.max_jobs") == "123"
    shoot(page, "wizard-trace-refused")


@pytest.mark.parametrize("family", [f for f in ("dvfs_bot", "ep_jobs") if f in FAMILIES])
def test_families_that_read_no_trace_show_no_trace_input(page, live_server, stored, family):
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family={family}")
    page.wait_for_selector("#wizard .wizard-root")
    assert page.locator("input[type=file]").count() == 0
    assert page.locator(".trace-picker, #trace-upload-box").count() == 0
    ids = page.evaluate("() => [...document.querySelectorAll('#wizard input, #wizard textarea')].map((e) => e.id)")
    assert not [i for i in ids if "trace" in i.lower() or "swf" in i.lower()]


@pytest.mark.parametrize("family", [f for f in ("federated", "vm_reservations") if f in FAMILIES])
def test_the_other_trace_families_pick_from_the_same_list(page, live_server, stored, family):
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family={family}")
    page.click("[data-tab='workload:trace']")
    assert sorted(_rows(page)) == ["CTC-SP2 sample", "my cluster log"]
    for key in ("trace", "swf", "text", "path"):
        assert page.locator(f"#w-workload\\.{key}").count() == 0
    page.check("tr:has-text('my cluster log') input[type=radio]")
    assert "96 processors (header MaxNodes)" in page.inner_text("#w-trace-machine")
    assert page.locator("#w-trace-use-size").count() == 0  # no single data centre size in this family
    if family == "federated":  # its widest job (120 VMs) would not fit the default clouds: say so or choose drop
        page.select_option("#w-workload\\.wider_jobs", '"drop"')
    page.click("#save-button")
    page.wait_for_selector("#run-button")
    assert Scenario.objects.get().config["workload"]["trace"] == stored["mine"].ref


@pytest.mark.skipif("backfill" not in FAMILIES, reason="needs backfill")
def test_the_trace_list_fits_a_phone_and_has_no_serious_accessibility_violation(axe_page, live_server, stored):
    from tests.browser.test_phone_width import WIDTH

    _login(axe_page, live_server.url)
    axe_page.set_viewport_size({"width": 390, "height": 800})
    axe_page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    axe_page.click("[data-tab='workload:trace']")
    axe_page.check("tr:has-text('CTC-SP2 sample') input[type=radio]")
    width = axe_page.evaluate(WIDTH)
    assert width["page"] <= width["view"] and not width["wide"], width
    shoot(axe_page, "wizard-trace-picker-390")
    axe_page.add_script_tag(path=str(a11y.AXE))
    assert axe_page.evaluate(a11y.RUN_AXE) == []


@pytest.mark.skipif("backfill" not in FAMILIES, reason="needs backfill")
def test_a_wide_trace_is_refused_or_its_drop_count_shows_on_the_run_page(page, live_server, stored, monkeypatch):
    """The issue's target: a trace with jobs wider than the machine is refused at its field, or — when the
    user chooses to drop them — the run page's header and validity box say how many were left out."""
    from cloudsched_web.runs import services
    from cloudsched_web.runs.models import Run
    from cloudsched_web.runs.tasks import run_simulation

    monkeypatch.setattr(services, "send", lambda ids: True)  # the test runs the run itself, below
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.click("[data-tab='workload:trace']")
    page.check("tr:has-text('CTC-SP2 sample') input[type=radio]")  # jobs of 300 and 338 processors
    page.fill("#w-datacenter\\.processors", "100")
    page.click("#save-button")
    error = page.inner_text("[data-path='datacenter.processors'] .field-error")
    assert "2 jobs of the trace need more than the machine's 100 processors (the widest needs 338)" in error
    assert not Scenario.objects.exists()
    warning = page.locator("#w-trace-wider")
    assert warning.get_attribute("class") == "field-error" and "refused unless" in warning.inner_text()
    page.select_option("#w-workload\\.wider_jobs", '"drop"')
    assert warning.get_attribute("class") == "help" and "They are dropped" in warning.inner_text()  # no stale red
    page.click("#save-button")
    page.wait_for_selector("#run-button")
    page.click("#run-button")
    page.wait_for_selector("#run-status")
    run = Run.objects.get()
    run_simulation.apply(args=[run.pk])
    assert Run.objects.get(pk=run.pk).status == Run.Status.SUCCEEDED
    page.wait_for_selector("#run-dropped", timeout=30_000)  # the page reloads itself when its run succeeds
    assert "2 jobs of the trace needed more than the machine of 100 processors" in page.inner_text("#run-dropped")
    assert page.inner_text("#validity-badge") == "checks passed, with a warning"
    assert "every trace job fits the machine: 2 jobs needed more than 100" in page.inner_text("li.warn")
    shoot(page, "run-wide-trace-dropped")


@pytest.mark.skipif("backfill" not in FAMILIES, reason="needs backfill")
def test_a_name_the_user_typed_is_kept_when_a_trace_is_chosen(page, live_server, stored):
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.fill("#w-name", "my own study")
    page.click("[data-tab='workload:trace']")
    page.check("tr:has-text('CTC-SP2 sample') input[type=radio]")
    assert page.input_value("#w-name") == "my own study"


@pytest.mark.skipif("backfill" not in FAMILIES, reason="needs backfill")
def test_an_uploaded_wide_trace_refused_ends_in_a_run_in_three_clicks(page, live_server, alice, tmp_path, monkeypatch):
    """Upload a trace with a job wider than the machine and save: refused at the machine size, the upload kept and
    chosen; then choose "drop" (1), save (2), run (3): no re-upload, no "give exactly one of" dead end."""
    from cloudsched_web.runs import services

    monkeypatch.setattr(services, "send", lambda ids: True)  # queued: the run's own work is another test's
    wide = tmp_path / "wide.swf"
    wide.write_bytes(_swf("; MaxProcs: 128", [4, 8, 120, 16]))
    _login(page, live_server.url)
    page.goto(f"{live_server.url}/scenarios/new/?family=backfill")
    page.click("[data-tab='workload:trace']")
    page.fill("#w-datacenter\\.processors", "64")
    page.set_input_files(".trace-picker #id_trace_file", str(wide))
    page.click("#save-button")
    error = page.inner_text("[data-path='datacenter.processors'] .field-error")
    assert "1 job of the trace needs more than the machine's 64 processors (the widest needs 120)" in error, error
    assert not Scenario.objects.exists()
    stored = Trace.objects.get()  # the upload is kept, and chosen: nothing to upload again
    assert page.is_checked(f"tr:has-text('{stored.name}') input[type=radio]")
    page.select_option("#w-workload\\.wider_jobs", '"drop"')  # click 1
    assert "refused unless" not in page.inner_text("#w-trace-wider")
    page.click("#save-button")  # click 2
    page.wait_for_selector("#run-button")
    scenario = Scenario.objects.get()
    assert scenario.config["workload"]["trace"] == stored.ref and scenario.config["workload"]["wider_jobs"] == "drop"
    page.click("#run-button")  # click 3
    page.wait_for_selector("#run-status")
    assert scenario.runs.count() == 1
