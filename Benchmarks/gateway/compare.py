#!/usr/bin/env python3
"""The measuring half of scripts/bench-gateway: runs the wrk scenarios against one system, or
several in turn, and records, per scenario, wrk's rate, latencies and errors and the CPU time each
process group spent per request; then prints the side-by-side table.

usage:
  compare.py run SYSTEM URL BENCH_DIR OUT_JSON GROUP=PID[,PID...]...
      SYSTEM is a label (ours, peer). Each GROUP is a set of processes with their descendants
      (e.g. gateway=123, postgres+redis=456,789); CPU is counted per group, peak RSS too.
  compare.py run-interleaved CONFIG_JSONL
      Several systems, already running, each scenario on each in turn (run_interleaved).
  compare.py table OURS_JSON [OTHER_JSON...]
      One row per scenario: our figures, then each other system's (the Go peer, the Python peer)
      with the ratio of our rate to its rate.

Environment: BENCH_SECONDS (10), BENCH_CONNECTIONS (64), BENCH_CHAINS (16: connections of the
refresh and sign-in scenarios), BENCH_PACED_CONNECTIONS (16) and BENCH_PACED_DELAY_MS (16: the
paced scenarios, each connection waiting that long between an answer and its next request),
BENCH_THREADS (2), BENCH_SCENARIOS (comma-separated keys, all by default), BENCH_METRICS
(name=URL,...: /metrics pages whose request histograms are read before and after each scenario,
breakdown.py), BENCH_PROFILE (1: `perf record` each process group during each scenario and
keep the symbols with the largest shares, breakdown.Profiles)."""
import contextlib
import json
import os
import re
import subprocess
import sys
import threading

import breakdown

HERE = os.path.dirname(os.path.abspath(__file__))
TICK_US = 1_000_000 / os.sysconf("SC_CLK_TCK")

# key, label, Lua script, connections ("c" = BENCH_CONNECTIONS, "chains" = BENCH_CHAINS, "paced" =
# BENCH_PACED_CONNECTIONS), extra environment, warm-up (scenarios whose tokens are good once have
# none). The paced scenarios (their scripts get BENCH_DELAY_MS = BENCH_PACED_DELAY_MS) load the
# system moderately (16 connections × one request per 16 ms + the answer's time) and are read
# by their p50/p99, not their rate.
SCENARIOS = [
    ("me", "GET /api/v1/auth/me", "me.lua", "c", {}, True),
    ("favorites", "GET /api/v1/favorites?limit=50", "favorites.lua", "c", {}, True),
    ("query", "POST /api/v1/state/query (50 ids)", "state_query.lua", "c", {}, True),
    ("changes", "GET /api/v1/state/changes?limit=100", "changes.lua", "c", {}, True),
    ("put1", "PUT /api/v1/favorites/{id}, one user", "put_favorite.lua", "c", {"BENCH_PUT_USERS": "1"}, True),
    ("put64", "PUT /api/v1/favorites/{id}, 64 users at random", "put_favorite.lua", "c", {"BENCH_PUT_USERS": "0"}, True),
    ("refresh", "POST /api/v1/auth/refresh, 16 chains", "refresh.lua", "chains", {}, False),
    ("signin", "POST /api/v1/auth/apple, 16 users", "signin.lua", "chains", {}, True),
    ("healthz", "GET /healthz (the HTTP floor)", "healthz.lua", "c", {}, True),
    ("query-paced", "POST /api/v1/state/query (50 ids), paced", "state_query.lua", "paced", {}, True),
    ("put64-paced", "PUT /api/v1/favorites/{id}, 64 users, paced", "put_favorite.lua", "paced", {"BENCH_PUT_USERS": "0"}, True),
    # The paced floor: what the paced p99s stand on (no token, no backend, no Postgres).
    ("healthz-paced", "GET /healthz (the HTTP floor), paced", "healthz.lua", "paced", {}, True),
    # DPoP-bound sessions (ours only): the same requests with a proof each (dpop.py), against
    # the bearer rows above.
    ("me-dpop", "GET /api/v1/auth/me, DPoP-bound", "dpop_requests.lua", "c",
     {"BENCH_METHOD": "GET", "BENCH_PATH": "/api/v1/auth/me"}, True),
    ("query-dpop", "POST /api/v1/state/query (50 ids), DPoP-bound", "dpop_requests.lua", "c",
     {"BENCH_METHOD": "POST", "BENCH_PATH": "/api/v1/state/query",
      "BENCH_BODY": '{"item_ids":[' + ",".join(f'"item-{i}"' for i in range(50)) + "]}"}, True),
]
# The bearer scenario each DPoP one is measured against: its rate sizes the proofs made.
DPOP_BASELINE = {"me-dpop": "me", "query-dpop": "query"}


def make_proofs(url, bench_dir, env, count, threads):
    """One proof per request wrk will send (dpop.py proofs), made just before it runs."""
    subprocess.run([sys.executable, os.path.join(HERE, "dpop.py"), "proofs", bench_dir, url, env["BENCH_METHOD"],
                    env["BENCH_PATH"], str(count), str(threads)], check=True)


def children_map():
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kids.setdefault(int(fields[1]), []).append(int(name))
    return kids


def tree(roots, kids=None):
    """`roots` and their descendants; `kids` a `children_map()` already read, else read here."""
    kids, seen, todo = kids if kids is not None else children_map(), [], list(roots)
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.append(pid)
            todo.extend(kids.get(pid, []))
    return seen


def cpu_ticks(pid, reaped=False):
    """The CPU ticks `pid` used; with `reaped`, plus those of the children it has waited for."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        return ticks + (int(fields[13]) + int(fields[14]) if reaped else 0)  # cutime, cstime
    except OSError:
        return 0


def peak_rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def pss_kib(pid):
    """The proportional set size: private pages plus a share of each page the process shares
    (libraries mapped by several services count once across them)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class PSSSampler:
    """Samples the summed PSS of the given process groups once a second. `peak` covers the
    scenarios every system runs (`shared` set while they run), `all_peak` every scenario, the
    DPoP ones only ours runs too (they come last): the peers' peak RSS is compared with the first."""

    def __init__(self, groups):
        self.groups, self.peak, self.all_peak, self.stop = groups, 0, 0, threading.Event()
        self.shared = True

    def sample(self):
        pids = tree([pid for roots in self.groups.values() for pid in roots])
        pss = sum(pss_kib(pid) for pid in pids)
        if self.shared:
            self.peak = max(self.peak, pss)
        self.all_peak = max(self.all_peak, pss)

    def __enter__(self):
        # A fresh event each time: the sampler runs in every scenario, not the first alone.
        self.stop = threading.Event()

        def loop():
            while not self.stop.wait(1):
                self.sample()
        self.thread = threading.Thread(target=loop, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def group_cpu(groups):
    """Per group: each process's CPU ticks (pid → ticks), a root's with those of the children it
    has reaped, and which processes are a root's children. A process that starts between two
    snapshots counts from zero. One that ends between them counts through its parent when that
    is a root: Postgres's postmaster reaps each backend that ends, and a client's pool that
    closes connections and opens others (the Go peer's, under sign-in) would otherwise leave
    their backends' work out."""
    kids = children_map()
    snapshot = {}
    for name, roots in groups.items():
        snapshot[name] = {"ticks": {pid: cpu_ticks(pid, reaped=pid in roots) for pid in tree(roots, kids)},
                          "reaped": {kid for root in roots for kid in kids.get(root, [])}}
    return snapshot


def cpu_delta(before, after):
    """Per group, the ticks used between the two snapshots. A root's child that ended between
    them is in the root's reaped ticks with all its life's: its ticks before the first are taken
    off."""
    deltas = {}
    for name in after:
        was, now = before[name]["ticks"], after[name]["ticks"]
        ended = [pid for pid in was if pid not in now and pid in before[name]["reaped"]]
        deltas[name] = sum(ticks - was.get(pid, 0) for pid, ticks in now.items()) - sum(was[pid] for pid in ended)
    return deltas


def machine_stat():
    with open("/proc/stat") as f:
        return [int(v) for v in f.readline().split()[1:9]]


def wrk_ms(out, row):
    """The first figure of wrk's output row `row` (a regular expression), in ms."""
    m = re.search(r"^\s*" + row + r"\s+([\d.]+)(us|ms|s)", out, re.M)
    value, unit = float(m.group(1)), m.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def latency_ms(out, label):
    """A percentile of wrk's latency distribution (`--latency`), in ms."""
    return wrk_ms(out, label + "%")


def wrk(url, bench_dir, script, connections, seconds, threads, env, latency=True):
    """Runs wrk; returns its output and the CPU seconds it used (its own rusage)."""
    args = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "-s", os.path.join(HERE, script), url]
    if latency:
        args.insert(1, "--latency")
    full_env = dict(os.environ, BENCH_DIR=bench_dir, BENCH_THREADS=str(threads), **env)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=full_env, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        sys.exit(f"wrk failed: {out}")
    return out, usage.ru_utime + usage.ru_stime


class Settings:
    """The environment's settings of a run (see the module's doc)."""

    def __init__(self):
        self.seconds = int(os.environ.get("BENCH_SECONDS", "10"))
        self.threads = int(os.environ.get("BENCH_THREADS", "2"))
        self.connections = {"c": int(os.environ.get("BENCH_CONNECTIONS", "64")),
                            "chains": int(os.environ.get("BENCH_CHAINS", "16")),
                            "paced": int(os.environ.get("BENCH_PACED_CONNECTIONS", "16"))}
        self.paced_delay = os.environ.get("BENCH_PACED_DELAY_MS", "16")
        self.profile = os.environ.get("BENCH_PROFILE") == "1"
        wanted = os.environ.get("BENCH_SCENARIOS")
        self.scenarios = [s for s in SCENARIOS if not wanted or s[0] in wanted.split(",")]


class SystemRun:
    """One system's measurements, a scenario at a time; `finish` writes them to OUT_JSON."""

    def __init__(self, settings, system, url, bench_dir, out_json, groups, metrics):
        self.settings, self.system, self.url, self.bench_dir, self.out_json = settings, system, url, bench_dir, out_json
        self.groups, self.metrics = groups, metrics
        self.results = {"system": system, "groups": list(groups), "scenarios": {}}
        self.memory = PSSSampler({name: roots for name, roots in groups.items() if name != "postgres+redis"})

    def scenario(self, key, label, script, conns, env, warm):
        settings, url, bench_dir, groups = self.settings, self.url, self.bench_dir, self.groups
        threads, seconds = settings.threads, settings.seconds
        c = settings.connections[conns]
        if conns == "paced":
            env = dict(env, BENCH_DELAY_MS=settings.paced_delay)
        dpop = key in DPOP_BASELINE
        if dpop and not os.path.exists(os.path.join(bench_dir, "dpop_sessions.json")):
            return  # a system without DPoP (the peers)
        if dpop:
            baseline = self.results["scenarios"].get(DPOP_BASELINE[key], {}).get("rate", 15_000)
            make_proofs(url, bench_dir, env, int(baseline * 2 * 1.5) + 1_000, threads)
        if warm:
            wrk(url, bench_dir, script, c, 2, threads, env, latency=False)
        if dpop:
            make_proofs(url, bench_dir, env, int(baseline * seconds * 1.5) + 1_000, threads)
        load = os.getloadavg()[0]
        pids = {name: tree(roots) for name, roots in groups.items()}
        before_metrics = breakdown.scrape_all(self.metrics)
        before_cpu, before_stat, before_sched = group_cpu(groups), machine_stat(), breakdown.group_sched(pids)
        profiles = breakdown.Profiles(pids, os.path.dirname(os.path.abspath(self.out_json)), f"{self.system}-{key}") \
            if settings.profile else contextlib.nullcontext()
        self.memory.shared = not dpop
        with self.memory, profiles:
            out, wrk_seconds = wrk(url, bench_dir, script, c, seconds, threads, env)
        after_cpu, after_stat, after_sched = group_cpu(groups), machine_stat(), breakdown.group_sched(pids)
        after_metrics = breakdown.scrape_all(self.metrics)
        requests = int(re.search(r"(\d+) requests in", out).group(1))
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
        stat = [a - b for a, b in zip(after_stat, before_stat)]
        total = sum(stat) or 1
        cpu = {name: ticks * TICK_US / max(requests, 1) for name, ticks in cpu_delta(before_cpu, after_cpu).items()}
        cpu["wrk"] = wrk_seconds * 1_000_000 / max(requests, 1)
        result = self.results["scenarios"][key] = {
            "label": label, "connections": c, "requests": requests,
            "rate": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50": latency_ms(out, "50"), "p99": latency_ms(out, "99"), "mean": wrk_ms(out, "Latency"),
            "sched": breakdown.sched_per_request(before_sched, after_sched, requests),
            "stages": breakdown.stages(before_metrics, after_metrics),
            "profile": profiles.top() if isinstance(profiles, breakdown.Profiles) else {},
            "errors": (int(bad.group(1)) if bad else 0) + (sum(int(v) for v in socket.groups()) if socket else 0),
            "cpu_us": cpu, "load": load,
            "idle": 100 * (stat[3] + stat[4]) / total, "steal": 100 * stat[7] / total,
        }
        print(f"{self.system} {key}: {result['rate']:.0f}/s, p99 {result['p99']:.1f} ms, "
              f"errors {result['errors']}, load {load:.1f}", file=sys.stderr)

    def finish(self):
        # Peak RSS of the system's own processes (Postgres and Redis are shared by the systems).
        self.results["rss_kib"] = {name: sum(peak_rss_kib(pid) for pid in tree(roots))
                                   for name, roots in self.groups.items() if name != "postgres+redis"}
        self.results["peak_pss_kib"] = self.memory.peak
        self.results["peak_pss_kib_all_scenarios"] = self.memory.all_peak
        with open(self.out_json, "w") as f:
            json.dump(self.results, f, indent=1)


def parse_groups(group_args):
    groups = {}
    for arg in group_args:
        name, pids = arg.split("=", 1)
        groups[name] = [int(p) for p in pids.split(",") if p]
    return groups


def parse_metrics(text):
    return dict(item.split("=", 1) for item in text.split(",") if item)


def run(system, url, bench_dir, out_json, group_args):
    """One system, every scenario in turn (its /metrics pages from BENCH_METRICS)."""
    settings = Settings()
    runner = SystemRun(settings, system, url, bench_dir, out_json, parse_groups(group_args),
                       parse_metrics(os.environ.get("BENCH_METRICS", "")))
    for scenario in settings.scenarios:
        runner.scenario(*scenario)
    runner.finish()


def run_interleaved(config_path):
    """Every system at once, scenario by scenario: each scenario runs on each system in turn
    (in the order the file lists them), so a scenario's ratios come from neighbouring minutes of
    the machine rather than from runs minutes apart. CONFIG has a JSON object a line, one a
    system: {"system", "url", "bench_dir", "out_json", "groups": ["NAME=PID,...", ...],
    "metrics": "name=URL,..."}."""
    settings = Settings()
    with open(config_path) as f:
        systems = [json.loads(line) for line in f if line.strip()]
    runners = [SystemRun(settings, c["system"], c["url"], c["bench_dir"], c["out_json"], parse_groups(c["groups"]),
                         parse_metrics(c.get("metrics", ""))) for c in systems]
    for scenario in settings.scenarios:
        for runner in runners:
            runner.scenario(*scenario)
    for runner in runners:
        runner.finish()


def cpu_text(scenario, groups):
    return " · ".join(f"{scenario['cpu_us'].get(g, 0):.0f}" for g in groups + ["wrk"])


NAMES = {"ours": "ours", "go": "Go", "peer": "Python", "python": "Python"}


def table(ours_json, *other_jsons):
    """Our figures and, per other system, its figures and our rate over its rate."""
    ours = json.load(open(ours_json))
    others = [json.load(open(path)) for path in other_jsons]
    names = [NAMES.get(o["system"], o["system"]) for o in others]
    print("CPU µs per request, ours: " + " · ".join(ours["groups"] + ["wrk"])
          + "".join(f"; {n}: " + " · ".join(o["groups"] + ["wrk"]) for n, o in zip(names, others)))
    print()
    header = ["scenario", "conns", "ours req/s"]
    for n in names:
        header += [f"{n} req/s", f"× {n}"]
    header += ["ours p50 / p99 ms"] + [f"{n} p50 / p99 ms" for n in names]
    header += ["errors " + " / ".join(["ours"] + names), "ours CPU µs/req"] + [f"{n} CPU µs/req" for n in names]
    header += ["load · steal %"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join(["---", "---:", "---:"] + ["---:", "---:"] * len(others) + ["---:"] * (1 + len(others))
                         + ["---:"] + ["---"] * (1 + len(others)) + ["---"]) + "|")
    for key, s in ours["scenarios"].items():
        row = [s["label"], str(s["connections"]), f"{s['rate']:,.0f}"]
        theirs = [o["scenarios"].get(key) for o in others]
        for t in theirs:
            row += [f"{t['rate']:,.0f}", f"{s['rate'] / t['rate']:.2f}×"] if t else ["–", "–"]
        row += [f"{x['p50']:.2f} / {x['p99']:.2f}" if x else "–" for x in [s] + theirs]
        row += [" / ".join(str(x["errors"]) if x else "–" for x in [s] + theirs)]
        row += [cpu_text(s, ours["groups"])] + [cpu_text(t, o["groups"]) if t else "–" for t, o in zip(theirs, others)]
        row += [f"{s['load']:.1f} · {s['steal']:.0f}"]
        print("| " + " | ".join(row) + " |")
    detail = " + ".join(f"{v / 1024:.0f}" for v in ours["rss_kib"].values())
    blank = [""] * (len(header) - 3 - 2 * len(others))
    for label, value in ((f"peak RSS MiB, summed over the services (ours {detail})", lambda r: sum(r["rss_kib"].values()) / 1024),
                         ("peak PSS MiB, the services together (shared pages once)", lambda r: r["peak_pss_kib"] / 1024)):
        row = [label, "", f"{value(ours):.0f}"]
        for o in others:
            row += [f"{value(o):.0f}", f"{value(ours) / value(o):.2f}×" if value(o) else "–"]
        print("| " + " | ".join(row + blank) + " |")
    if ours.get("peak_pss_kib_all_scenarios", 0) > ours["peak_pss_kib"]:
        # The scenarios only ours runs (DPoP: its proofs' replay cache among them), apart.
        row = ["peak PSS MiB, ours with the DPoP scenarios too", "", f"{ours['peak_pss_kib_all_scenarios'] / 1024:.0f}"]
        print("| " + " | ".join(row + ["", ""] * len(others) + blank) + " |")
    time_table(ours, others, names)


def time_table(ours, others, names):
    """Where a request's time goes (breakdown.py): per system and scenario, wrk's mean latency;
    per process group the CPU, the run-queue wait (µs) and the times on a CPU, a request; for
    ours the stages its histograms time (mean / p99 ms)."""
    print()
    print("Where the time goes, a request: per process group CPU µs · run-queue wait µs · times on a CPU; "
          "stages mean / p99 ms (p99 from 0.5/1/2/5 ms buckets)")
    print()
    print("| scenario | system | wrk mean / p99 ms | per process group | stages |")
    print("|---|---|---:|---|---|")
    for key, s in ours["scenarios"].items():
        for name, system in [("ours", ours)] + list(zip(names, others)):
            x = system["scenarios"].get(key)
            if not x or "sched" not in x:
                continue
            groups = " · ".join(f"{g} {x['cpu_us'].get(g, 0):.0f} · {v['wait_us']:.0f} · {v['switches']:.1f}"
                                for g, v in x["sched"].items())
            stages = "; ".join(f"{st['stage']} {st['mean_ms']:.2f} / {st['p99_ms']:.1f}" for st in x.get("stages", []))
            print(f"| {s['label'] if name == 'ours' else ''} | {name} | {x['mean']:.2f} / {x['p99']:.2f} | {groups} | {stages or '–'} |")
    for key, s in ours["scenarios"].items():
        for name, system in [("ours", ours)] + list(zip(names, others)):
            profile = system["scenarios"].get(key, {}).get("profile")
            if not profile:
                continue
            print(f"\nprofile, {s['label']}, {name} (share of each group's samples):")
            for group, rows in profile.items():
                if rows:
                    print(f"  {group}: " + "; ".join(f"{pct:.1f}% {symbol} ({dso})" for pct, dso, symbol in rows))


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    elif len(sys.argv) == 3 and sys.argv[1] == "run-interleaved":
        run_interleaved(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "table":
        table(*sys.argv[2:])
    else:
        sys.exit(__doc__)
