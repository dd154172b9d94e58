#!/usr/bin/env python3
"""Measures GET /healthz on HTTP servers already running, each in turn for ROUNDS rounds:
wrk's rate and the server's CPU a request (its /proc/PID/stat user + system time over wrk's
requests). Used by scripts/bench-http-floor; any server can be added by PID and URL.

    measure.py SECONDS ROUNDS NAME=PID@URL ...
"""
import os
import re
import statistics
import subprocess
import sys

# The gateway benchmark's reading of a process's CPU (/proc/PID/stat, user + system ticks).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gateway"))
from compare import TICK_US, cpu_ticks  # noqa: E402


def measure(pid, url, seconds):
    before = cpu_ticks(pid)
    out = subprocess.run(["wrk", "-t2", "-c64", f"-d{seconds}s", url + "/healthz"],
                         check=True, capture_output=True, text=True).stdout
    used_us = (cpu_ticks(pid) - before) * TICK_US
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if requests == 0 or errors:
        sys.exit(f"{url}: {requests} requests, {errors.group(1) if errors else 0} errors\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    return rate, used_us / requests


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    seconds, rounds = int(sys.argv[1]), int(sys.argv[2])
    servers = []
    for arg in sys.argv[3:]:
        name, rest = arg.split("=", 1)
        pid, url = rest.split("@", 1)
        servers.append((name, int(pid), url))
    results = {name: [] for name, _, _ in servers}
    for _ in range(rounds):
        for name, pid, url in servers:
            results[name].append(measure(pid, url, seconds))
    print("| server | req/s (each round) | CPU µs a request (each round) | CPU µs, median |")
    print("|---|---|---|---:|")
    for name, _, _ in servers:
        rates = " · ".join(f"{rate:,.0f}" for rate, _ in results[name])
        cpus = " · ".join(f"{cpu:.1f}" for _, cpu in results[name])
        median = statistics.median(cpu for _, cpu in results[name])
        print(f"| {name} | {rates} | {cpus} | {median:.1f} |")


if __name__ == "__main__":
    main()
