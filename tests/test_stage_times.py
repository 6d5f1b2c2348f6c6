"""tools/stage_times.py: the stage times that `make test` prints."""
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "stage_times.py"


def _run(*args):
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)], capture_output=True, text=True)


def test_stages_are_recorded_and_reported_with_their_total(tmp_path):
    log = tmp_path / "stages"
    assert _run(log, "--start").returncode == 0
    assert _run(log, "first", "--", sys.executable, "-c", "pass").returncode == 0
    assert _run(log, "second stage", "--", sys.executable, "-c", "import time; time.sleep(0.3)").returncode == 0
    rows = [line.split("\t") for line in log.read_text().splitlines()]
    assert [name for name, _, _ in rows] == ["first", "second stage"]
    assert float(rows[1][1]) >= 0.3 and [status for *_, status in rows] == ["0", "0"]
    report = _run(log, "--report").stdout
    assert "first" in report and "second stage" in report
    assert f"{float(rows[0][1]) + float(rows[1][1]):7.1f} s" in report.splitlines()[-1]


def test_a_failing_stage_keeps_its_exit_status_and_prints_the_stages_so_far(tmp_path):
    log = tmp_path / "stages"
    _run(log, "--start")
    _run(log, "passes", "--", sys.executable, "-c", "pass")
    failed = _run(log, "fails", "--", sys.executable, "-c", "raise SystemExit(3)")
    assert failed.returncode == 3
    assert "passes" in failed.stdout and "(failed, exit 3)" in failed.stdout


def test_start_empties_the_log_of_an_earlier_run(tmp_path):
    log = tmp_path / "stages"
    log.write_text("old\t1.0\t0\n")
    _run(log, "--start")
    assert log.read_text() == ""


def test_a_command_is_required():
    assert _run("log", "name").returncode != 0
