import pytest

from schedulers.core.traces import check_trace_path, find_trace


def test_paths_must_name_an_existing_swf_file(tmp_path, monkeypatch):
    monkeypatch.delenv("CLOUDSCHED_RESTRICT_TRACE_PATHS", raising=False)  # the CLI's trusted mode
    trace = tmp_path / "log.swf"
    trace.write_text("1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 1 1 -1 -1 -1\n")
    assert check_trace_path(str(trace)) == []
    assert check_trace_path(str(tmp_path / "passwd"))[0]["allowed"].startswith("a path ending in .swf")
    assert "no such file" in check_trace_path(str(tmp_path / "none.swf"))[0]["message"]
    assert check_trace_path("x" * 5000 + ".swf")[0]["field"] == "workload.path"  # ENAMETOOLONG
    assert check_trace_path("a\0b.swf")[0]["field"] == "workload.path"


def test_a_restricted_server_only_reads_its_trace_directories(tmp_path, monkeypatch):
    inside = tmp_path / "traces"
    inside.mkdir()
    (inside / "ok.swf").write_text("")
    outside = tmp_path / "secret.swf"
    outside.write_text("")
    monkeypatch.setenv("CLOUDSCHED_TRACE_DIRS", str(inside))
    monkeypatch.setenv("CLOUDSCHED_RESTRICT_TRACE_PATHS", "1")
    assert check_trace_path(str(inside / "ok.swf")) == []
    errors = check_trace_path(str(inside / ".." / "secret.swf"), field="workload.path")
    assert errors[0]["field"] == "workload.path"
    assert "trace directories" in errors[0]["message"]
    assert find_trace("ok.swf") == inside / "ok.swf"


@pytest.mark.parametrize("family", ["backfill", "federated", "vm_reservations"])
def test_families_refuse_trace_paths_outside_the_allowed_directories(family, tmp_path, monkeypatch):
    import schedulers

    outside = tmp_path / "elsewhere.swf"
    outside.write_text("1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 1 1 -1 -1 -1\n")
    monkeypatch.setenv("CLOUDSCHED_TRACE_DIRS", str(tmp_path / "allowed"))
    monkeypatch.setenv("CLOUDSCHED_RESTRICT_TRACE_PATHS", "1")
    with pytest.raises(schedulers.ScenarioError) as info:
        schedulers.validate({"family": family, "workload": {"kind": "trace", "path": str(outside)}})
    assert any(e["field"] == "workload.path" for e in info.value.errors), info.value.errors
