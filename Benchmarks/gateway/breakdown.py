"""Where a request's time goes, for Benchmarks/gateway/compare.py: the scheduler's account of
each process group (time on a CPU, time waiting in a run queue for one, times it was put on a
CPU) and, for our stack, the stages its own histograms time (the gateway's HTTP handling, its
RPC calls, the backend's handling of them), each read before and after a scenario and divided
by the requests wrk counted.

The scheduler's figures come from /proc/PID/task/TID/schedstat (the kernel's sched_info: run
nanoseconds, run-queue wait nanoseconds, timeslices), summed over every thread, so they hold for
any system, the peers included. The stages come from the Prometheus text at each ops port's
/metrics: a histogram's sum and count give its mean; its buckets (0.5, 1, 2, 5 ms ...) a coarse
upper percentile."""
import os
import re
import signal
import subprocess
import urllib.request


def thread_sched(pid):
    """(run ns, wait ns, timeslices) summed over the process's threads; zeros once it ended."""
    totals = [0, 0, 0]
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return tuple(totals)
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                values = [int(v) for v in f.read().split()[:3]]
        except (OSError, ValueError):
            continue
        totals = [a + b for a, b in zip(totals, values)]
    return tuple(totals)


def group_sched(groups_pids):
    """groups_pids: name → [pid]; returns name → {pid: (run, wait, slices)}."""
    return {name: {pid: thread_sched(pid) for pid in pids} for name, pids in groups_pids.items()}


def sched_per_request(before, after, requests):
    """name → {"wait_us", "switches"}: run-queue wait µs and times on a CPU, per request. A
    process that ended between the samples (a Postgres backend of a closed connection) is left
    out, and so is a thread that ended (the services keep theirs)."""
    result = {}
    for name, now in after.items():
        wait = slices = 0
        for pid, (_, w, s) in now.items():
            _, w0, s0 = before[name].get(pid, (0, 0, 0))
            if w < w0 or s < s0:
                continue  # ended, or lost a thread
            wait, slices = wait + w - w0, slices + s - s0
        n = max(requests, 1)
        result[name] = {"wait_us": wait / 1000 / n, "switches": slices / n}
    return result


LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape(url):
    """Histogram series of one /metrics page: (name, labels without le) → {"sum", "count",
    "buckets": {le: cumulative count}}."""
    with urllib.request.urlopen(url, timeout=5) as response:
        text = response.read().decode()
    series = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if not m or line.startswith("#"):
            continue
        name, labels, value = m.group(1), dict(LABEL.findall(m.group(2) or "")), float(m.group(3))
        for suffix in ("_bucket", "_sum", "_count"):
            if name.endswith(suffix):
                base = name[: -len(suffix)]
                le = labels.pop("le", None)
                entry = series.setdefault((base, tuple(sorted(labels.items()))), {"sum": 0.0, "count": 0.0, "buckets": {}})
                if suffix == "_bucket":
                    entry["buckets"][float("inf") if le == "+Inf" else float(le)] = value
                else:
                    entry[suffix[1:]] = value
    return series


def scrape_all(endpoints):
    """endpoints: name → metrics URL."""
    return {name: scrape(url) for name, url in endpoints.items()}


def busiest(before, after, metric):
    """The series of `metric` whose count rose most between the two scrapes, as deltas."""
    best = None
    for key, now in after.items():
        if key[0] != metric:
            continue
        then = before.get(key, {"sum": 0.0, "count": 0.0, "buckets": {}})
        count = now["count"] - then["count"]
        if count > 0 and (best is None or count > best["count"]):
            buckets = {le: v - then["buckets"].get(le, 0.0) for le, v in now["buckets"].items()}
            best = {"labels": dict(key[1]), "count": count, "sum": now["sum"] - then["sum"], "buckets": buckets}
    return best


def quantile_ms(delta, q):
    """The q-quantile from cumulative buckets, interpolated linearly inside its bucket."""
    target, lower, below = q * delta["count"], 0.0, 0.0
    for le in sorted(delta["buckets"]):
        count = delta["buckets"][le]
        if count >= target:
            if le == float("inf"):
                return lower * 1000
            share = (target - below) / max(count - below, 1e-9)
            return (lower + share * (le - lower)) * 1000
        lower, below = le, count
    return lower * 1000


# The stages our stack times, in the order a request meets them: (process, metric, what it is).
STAGES = [
    ("gateway", "http_request_duration_seconds", "gateway, HTTP request"),
    ("gateway", "rpc_client_call_duration_seconds", "gateway, RPC call"),
    ("backend", "rpc_server_request_duration_seconds", "backend, RPC handling"),
]


def stages(before, after):
    """Per stage: mean ms and p99 ms (from buckets) over the scenario; the backend is the one
    whose RPC handling counted most requests."""
    result = []
    for process, metric, label in STAGES:
        candidates = [process] if process != "backend" else [n for n in after if n != "gateway"]
        best, where = None, None
        for name in candidates:
            delta = busiest(before.get(name, {}), after.get(name, {}), metric)
            if delta and (best is None or delta["count"] > best["count"]):
                best, where = delta, name
        if best:
            result.append({"stage": label, "process": where, "labels": best["labels"], "count": best["count"],
                           "mean_ms": best["sum"] / best["count"] * 1000, "p99_ms": quantile_ms(best, 0.99)})
    return result


class Profiles:
    """With BENCH_PROFILE=1: `perf record` of each process group while a scenario runs (999
    samples a second a CPU, no call graphs), then per group the symbols with the largest shares
    of its samples (Swift names demangled), for "what the profiles name"."""

    def __init__(self, groups_pids, directory, scenario):
        self.groups_pids, self.directory, self.scenario, self.procs = groups_pids, directory, scenario, {}

    def __enter__(self):
        for name, pids in self.groups_pids.items():
            path = os.path.join(self.directory, f"{self.scenario}-{name}.perf")
            self.procs[name] = (path, subprocess.Popen(
                ["perf", "record", "-q", "-F", "999", "-o", path, "-p", ",".join(str(p) for p in pids)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        return self

    def __exit__(self, *exc):
        for _, proc in self.procs.values():
            proc.send_signal(signal.SIGINT)
        for _, proc in self.procs.values():
            proc.wait()

    def top(self, count=8):
        """group → [[share %, library, symbol]]."""
        result = {}
        for name, (path, _) in self.procs.items():
            report = subprocess.run(["perf", "report", "-i", path, "--stdio", "--no-children", "--sort", "dso,sym",
                                     "--percent-limit", "1"], capture_output=True, text=True).stdout
            rows = []
            for line in report.splitlines():
                m = re.match(r"^\s+([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$", line)
                if m:
                    rows.append([float(m.group(1)), m.group(2), m.group(3).strip()])
            names = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(r[2] for r in rows),
                                   capture_output=True, text=True).stdout.splitlines() if rows else []
            for row, demangled in zip(rows, names):
                row[2] = demangled[:120]
            result[name] = rows[:count]
        return result
