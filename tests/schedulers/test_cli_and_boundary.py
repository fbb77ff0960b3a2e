import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args, stdin=None):
    # The toy family lives in tests/, so the CLI runs through a shim that registers it first.
    code = "import sys; from tests import toy_family; toy_family.install(); from schedulers.__main__ import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_listing_the_families_imports_none_of_them_even_with_plugins_installed():
    code = """if True:
        import sys, schedulers
        assert len(schedulers.all_families()) >= 5
        assert not [m for m in sys.modules if m.startswith(("schedulers.backfill", "schedulers.federated"))]
        """
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


def test_the_library_never_imports_django():
    code = "import sys, schedulers; list(schedulers.all_families().values()); assert 'django' not in sys.modules and 'celery' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


def test_a_family_is_imported_when_first_used_not_when_listed():
    # start-up time (bench/startup.py): a command pays only for the families it uses. The library alone: a
    # plug-in installed in this environment is loaded when a family is first looked up and imports the
    # modules of its own family (the example package has one in each), so this interpreter is shown none.
    code = """if True:
        from importlib import metadata
        metadata.entry_points = lambda **kw: metadata.EntryPoints(())
        import sys, schedulers
        names = list(schedulers.all_families())
        assert {"backfill", "dvfs_bot", "ep_jobs", "federated", "vm_reservations"} <= set(names), names
        assert not [m for m in sys.modules if m.startswith(("schedulers.backfill", "schedulers.federated"))]
        assert schedulers.get_family("backfill").name == "backfill"
        assert "schedulers.backfill.model" in sys.modules and "schedulers.federated" not in sys.modules
        """
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)


def test_cli_example_then_run(tmp_path):
    example = _cli("example", "toy")
    assert example.returncode == 0
    scenario = tmp_path / "s.json"
    scenario.write_text(example.stdout)
    out = tmp_path / "r.json"
    done = _cli("run", str(scenario), "-o", str(out), "--progress")
    assert done.returncode == 0, done.stderr
    assert "100.0%" in done.stderr
    assert json.loads(out.read_text())["family"] == "toy"


def test_cli_exits_2_with_the_validation_message():
    done = _cli("run", "-", stdin=json.dumps({"family": "toy", "repetitions": 1000}))
    assert done.returncode == 2
    assert "repetitions" in done.stderr and "≤ 100" in done.stderr


def test_cli_families_and_schema():
    families = _cli("families")
    assert families.returncode == 0 and "toy" in families.stdout
    schema = json.loads(_cli("schema", "toy").stdout)
    assert "datacenter" in schema["properties"]
    assert _cli("preset", "toy", "nope").returncode == 2


def test_cli_streams_a_real_familys_result_json_from_its_columns(tmp_path):
    import schedulers
    from schedulers.core import jsonio
    from tests.golden import without_timing

    scenario = {"family": "backfill", "seed": 4, "algorithms": ["easy", "keasy"], "datacenter": {"processors": 16},
                "workload": {"kind": "generator", "model": "feitelson", "n_jobs": 120, "load": 0.8}}  # fmt: skip
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    out = tmp_path / "r.json"
    done = _cli("run", str(path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    written = json.loads(out.read_text())
    assert len(written["runs"][1]["schedule"]) > 0
    assert without_timing(written) == without_timing(json.loads(jsonio.dumps(schedulers.run(scenario))))


def test_running_a_family_does_not_import_pyarrow():
    code = ("import sys, schedulers; schedulers.run(schedulers.example('backfill') | {'algorithms': ['easy']}); "
            "assert 'pyarrow' not in sys.modules, 'pyarrow imported'")  # fmt: skip
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=300)
