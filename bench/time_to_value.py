"""Time to value: from a clean clone, how long `make up` takes until every member cluster is Ready.

Clones this checkout's HEAD (`git clone`, so only committed work counts) into a temporary directory
and measures, in that clone:

(a) install included — `make up` with no `.venv`: create the virtualenv, install Flotilla and its
    dependencies, start the hub, the sim and the controller manager, join three members and wait
    until they are Ready. pip installs from whatever its configuration and cache offer: a wheel
    cache or a local wheel directory makes this figure exclude download time, an empty cache makes
    it include it — the output says which pip configuration was in effect.
(b) install excluded — `make up` again in the same clone (the virtualenv is up to date, so make
    skips the install): start to Ready.

Each run is stopped with `flotilla down` and must leave no process behind (checked: nothing may
still have the clone's path on its command line). The hub listens on a free port (`--secure-port 0`)
so the benchmark does not collide with a hub already on 6443. Goal: under 60 s, excluding download.

Run: `.venv/bin/python bench/time_to_value.py [--keep]`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

GOAL_SECONDS = 60.0
READY_TIMEOUT = 600.0
"""A cold install on a slow mirror can take minutes; past this the benchmark gives up."""
STARTING = "Starting Flotilla in"
READY = re.compile(r"Flotilla is up: .* Ready in ([0-9.]+)s")


@dataclass
class Measurement:
    total: float
    """From `make up` to the line saying every member is Ready."""
    before_up: float
    """From `make up` to `flotilla up`'s first line (venv and install, or make's up-to-date check)."""
    up_reported: float
    """What `flotilla up` itself reports: its start to every member Ready."""


def processes_mentioning(path: Path) -> list[int]:
    """Live processes (not zombies) whose command line mentions `path`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(path) in command and not stat[stat.rindex(")") + 2 :].startswith("Z"):
            found.append(int(entry.name))
    return found


def make_up(clone: Path, log: Path) -> tuple[subprocess.Popen[bytes], Measurement]:
    """Start `make up` in `clone` and follow its output until every member is Ready."""
    started = time.monotonic()
    output = log.open("wb")
    process = subprocess.Popen(
        ["make", "up", "UP_ARGS=--secure-port 0"],
        cwd=clone,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the cleanup can signal make and all below it
    )
    output.close()
    before_up = 0.0
    while True:
        text = log.read_text(errors="replace")
        if not before_up and STARTING in text:
            before_up = time.monotonic() - started
        match = READY.search(text)
        if match:
            return process, Measurement(time.monotonic() - started, before_up, float(match.group(1)))
        if process.poll() is not None:
            raise RuntimeError(f"make up exited with {process.returncode} before Ready:\n{text[-4000:]}")
        if time.monotonic() - started > READY_TIMEOUT:
            raise RuntimeError(f"make up not Ready after {READY_TIMEOUT:.0f}s:\n{text[-4000:]}")
        time.sleep(0.05)


def flotilla_down(clone: Path, make: subprocess.Popen[bytes]) -> None:
    """Stop the run with `flotilla down`, wait for make to end, and check nothing is left."""
    subprocess.run(
        [str(clone / ".venv" / "bin" / "flotilla"), "down", "--data-dir", str(clone / ".flotilla")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    make.wait(60)
    deadline = time.monotonic() + 10
    while processes_mentioning(clone) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = processes_mentioning(clone)
    if left:
        raise RuntimeError(f"processes left behind after flotilla down: {left}")


def force_cleanup(clone: Path, make: subprocess.Popen[bytes] | None) -> None:
    """Whatever failed, end every process this benchmark started."""
    if make is not None and make.poll() is None:
        down = clone / ".venv" / "bin" / "flotilla"
        if down.exists():
            subprocess.run(
                [str(down), "down", "--data-dir", str(clone / ".flotilla"), "--grace", "3"],
                capture_output=True,
                timeout=60,
                check=False,
            )
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
        make.wait()
    for pid in processes_mentioning(clone):
        os.kill(pid, signal.SIGKILL)


def pip_configuration(clone: Path) -> str:
    result = subprocess.run(
        [str(clone / ".venv" / "bin" / "pip"), "config", "list"],
        capture_output=True,
        text=True,
        check=False,
    )
    settings = [line for line in result.stdout.splitlines() if "find-links" in line or "index" in line]
    cache = subprocess.run(
        [str(clone / ".venv" / "bin" / "pip"), "cache", "dir"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return "; ".join([*settings, f"cache dir {cache or '(disabled)'}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="Keep the clone (its path is printed).")
    options = parser.parse_args()
    source = Path(__file__).resolve().parent.parent
    head = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    workspace = Path(tempfile.mkdtemp(prefix="flotilla-ttv-"))
    clone = workspace / "flotilla"
    subprocess.run(["git", "clone", "--quiet", str(source), str(clone)], check=True)
    print(f"clone of {source.name} at {head} in {clone}")
    make: subprocess.Popen[bytes] | None = None
    try:
        make, cold = make_up(clone, workspace / "make-up-1.log")
        print(
            f"(a) install included: {cold.total:.1f}s  (venv + install {cold.before_up:.1f}s, "
            f"flotilla up to Ready {cold.up_reported:.1f}s)"
        )
        flotilla_down(clone, make)
        make, warm = make_up(clone, workspace / "make-up-2.log")
        print(
            f"(b) install excluded: {warm.total:.1f}s  (make's up-to-date check and CLI start "
            f"{warm.before_up:.1f}s, flotilla up to Ready {warm.up_reported:.1f}s)"
        )
        flotilla_down(clone, make)
        make = None
        print(f"pip: {pip_configuration(clone)}")
        print("    (a) used pip's configuration and cache as found; wheels already cached or in a local")
        print("    wheel directory mean (a) excludes package download.")
        verdict = "met" if warm.total < GOAL_SECONDS else "MISSED"
        print(
            f"goal: under {GOAL_SECONDS:.0f}s from `make up` to every cluster Ready, excluding package "
            f"download — {verdict} ({warm.total:.1f}s without install, {cold.total:.1f}s with it)"
        )
        print("no process left behind: checked after each `flotilla down`")
    finally:
        force_cleanup(clone, make)
        if options.keep:
            print(f"kept {workspace}")
        else:
            shutil.rmtree(workspace, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
