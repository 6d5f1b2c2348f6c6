"""Time the stages of `make test` and print them at the end.

    python tools/stage_times.py LOG NAME -- COMMAND...   run COMMAND, add "NAME <seconds> <exit status>" to LOG,
                                                         exit with COMMAND's status (printing the stages so far
                                                         when it failed)
    python tools/stage_times.py LOG --report             print the stages recorded in LOG and their total

LOG is a plain text file that the first stage of a run empties (--start). Each stage is one line of the Makefile, so
each runs in its own shell; the file carries the times from one to the next.
"""
import subprocess
import sys
import time
from pathlib import Path


def report(log):
    rows = [line.split("\t") for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not rows:
        return
    width = max(len(name) for name, *_ in rows)
    print("\nmake test, time per stage:")
    for name, seconds, status in rows:
        print(f"  {name:<{width}}  {float(seconds):7.1f} s" + ("" if status == "0" else f"  (failed, exit {status})"))
    print(f"  {'total':<{width}}  {sum(float(s) for _, s, _ in rows):7.1f} s")


def main(argv):
    log = Path(argv[0])
    if argv[1:] == ["--report"]:
        report(log)
        return 0
    if argv[1:] == ["--start"]:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("", encoding="utf-8")
        return 0
    name, separator, *command = argv[1:]
    if separator != "--" or not command:
        sys.exit(f"usage: {Path(__file__).name} LOG NAME -- COMMAND...  |  LOG --report  |  LOG --start")
    start = time.perf_counter()
    status = subprocess.call(command)
    with log.open("a", encoding="utf-8") as file:
        file.write(f"{name}\t{time.perf_counter() - start:.1f}\t{status}\n")
    if status != 0:
        report(log)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
