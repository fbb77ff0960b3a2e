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


# Trace references (workload.trace = "sha256:…") as the CLI resolves them: the trace directories

RECORDS = (
    "; MaxProcs: 8\n1 0 0 100 4 -1 -1 4 200 -1 1 1 1 1 1 -1 -1 -1\n2 50 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n"
)


@pytest.fixture
def trace_dir(tmp_path, monkeypatch):
    from schedulers.core import traces

    root = tmp_path / "traces"
    root.mkdir()
    monkeypatch.setenv("CLOUDSCHED_TRACE_DIRS", str(root))
    monkeypatch.setattr(traces, "_SHARED", tmp_path / "no-shared")  # a clone without ../shared
    monkeypatch.delenv("CLOUDSCHED_RESTRICT_TRACE_PATHS", raising=False)
    return root


def test_a_reference_is_the_sha256_of_the_text_gzipped_or_not(tmp_path):
    import gzip
    import hashlib
    from pathlib import Path

    from schedulers.core.traces import content_ref

    plain, packed = tmp_path / "a.swf", tmp_path / "a.swf.gz"
    plain.write_text(RECORDS)
    packed.write_bytes(gzip.compress(RECORDS.encode()))
    ref = "sha256:" + hashlib.sha256(RECORDS.encode()).hexdigest()
    assert content_ref(Path(plain)) == content_ref(Path(packed)) == content_ref(RECORDS) == ref


@pytest.mark.parametrize("family", ["backfill", "federated", "vm_reservations"])
def test_the_cli_finds_a_referenced_trace_in_the_trace_directories(family, trace_dir, tmp_path, capsys):
    import json

    import schedulers
    from schedulers.__main__ import main
    from schedulers.core.traces import content_ref

    (trace_dir / "any-name.swf").write_text(RECORDS)  # found by hashing what is there
    config = schedulers.example(family)
    config["workload"] = {"kind": "trace", "trace": content_ref(RECORDS)}
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(config))
    assert main(["run", str(path), "-o", str(tmp_path / "out.json")]) in (0, None)
    assert json.loads((tmp_path / "out.json").read_text())["scenario"]["workload"]["trace"] == content_ref(RECORDS)


def test_a_file_named_by_its_digest_is_found_first_and_a_missing_one_says_how_to_add_it(trace_dir):
    import schedulers
    from schedulers.core.traces import catalog, content_ref

    ref = content_ref(RECORDS)
    named = trace_dir / f"{ref.removeprefix('sha256:')}.swf"
    named.write_text(RECORDS)
    assert catalog().path(ref) == named
    named.unlink()
    config = {"family": "backfill", "workload": {"kind": "trace", "trace": ref}}
    with pytest.raises(schedulers.ScenarioError) as info:
        schedulers.validate(config)
    (error,) = info.value.errors
    assert error["field"] == "workload.trace" and ref in error["message"]
    assert "CLOUDSCHED_TRACE_DIRS" in error["allowed"]
    bad = {"family": "backfill", "workload": {"kind": "trace", "trace": "sha256:xyz"}}
    with pytest.raises(schedulers.ScenarioError, match="not a trace reference"):
        schedulers.validate(bad)
    both = {"family": "backfill", "workload": {"kind": "trace", "trace": ref, "swf": RECORDS}}
    with pytest.raises(schedulers.ScenarioError, match="exactly one"):
        schedulers.validate(both)


def test_a_preset_missing_its_log_says_which_and_how_to_add_it(trace_dir):
    import schedulers
    from schedulers.vm_reservations.presets import TRACE_NAME

    doc = schedulers.preset("vm_reservations", "fig5_8")
    assert doc["missing_traces"] == [
        f"{TRACE_NAME} is not in the trace directories: put {TRACE_NAME} in $CLOUDSCHED_TRACE_DIRS or "
        "../shared/workloads/traces"
    ]
    assert doc["scenarios"][0]["workload"]["kind"] == "generator"
    (trace_dir / TRACE_NAME).write_bytes(b"")  # present (its content does not matter to the preset)
    doc = schedulers.preset("vm_reservations", "fig5_8")
    assert "missing_traces" not in doc and doc["scenarios"][0]["workload"]["path"] == str(trace_dir / TRACE_NAME)


def test_summary_of_a_trace():
    from schedulers.core.swf import read_swf
    from schedulers.core.traces import summary

    # work 4·100 + 2·100 = 600 processor-seconds on 8 processors over 50 s
    assert summary(read_swf(RECORDS)) == {
        "jobs": 2, "usable_jobs": 2, "processors": 8, "processors_from": "MaxProcs", "largest_job": 4,
        "span_s": 50.0, "natural_load": 600 / (8 * 50), "size_sum": 6,
    }  # fmt: skip


def test_summary_machine_size_maxprocs_else_maxnodes_else_largest_job():
    """The trace's machine as the families read it: MaxProcs, else MaxNodes, else its widest job."""
    from schedulers.core.swf import read_swf
    from schedulers.core.traces import summary

    jobs = "1 0 0 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n2 50 0 100 6 -1 -1 6 100 -1 1 1 1 1 1 -1 -1 -1\n"
    both = summary(read_swf("; MaxNodes: 16\n; MaxProcs: 32\n" + jobs))
    assert (both["processors"], both["processors_from"], both["largest_job"]) == (32, "MaxProcs", 6)
    nodes = summary(read_swf("; MaxNodes: 16\n" + jobs))
    assert (nodes["processors"], nodes["processors_from"]) == (16, "MaxNodes")
    bare = summary(read_swf(jobs))
    assert (bare["processors"], bare["processors_from"], bare["largest_job"]) == (6, "largest job", 6)
