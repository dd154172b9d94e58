#!/usr/bin/env python3
"""The README's Configuration tables against the variables the code reads (issue 48).

Each table under README.md's "## Configuration" has a heading naming where its variables are
read; every variable those sources read must have a row there, and every row must name a
variable they read. Read means: `env.<reader>("NAME"...)`, a helper called as `(env, "NAME"`,
a `names = [...]` list, or (the launcher) a string literal. Exits 1 naming each difference.

    python3 scripts/lib/check_configuration_docs.py
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# README heading -> (folders read, which names of them belong here)
SCOPES = {
    "All services": (["Shared/ServiceKit"], lambda name: not name.startswith("REDIS_")),
    "Redis clients (gateway, tokens, identity)": (["Shared/ServiceKit"], lambda name: name.startswith("REDIS_")),
    "Postgres backends (identity, tokens, content-state)": (["Shared/PostgresService"], lambda name: True),
    "Set by each service's launcher": (["Shared/ServiceLaunch"], lambda name: True),
    # The gateway with its own content connection applies content-state's rules, read by
    # content-state's configuration type from the same variables.
    "gateway": (["Services/gateway/Sources", "Services/content-state/Sources/ContentStateService/ContentStateConfiguration.swift"], lambda name: True),
    "identity": (["Services/identity/Sources"], lambda name: True),
    "tokens": (["Services/tokens/Sources"], lambda name: True),
    "content-state": (["Services/content-state/Sources"], lambda name: True),
}
READS = [
    re.compile(r'env\.\w+\(\s*"([A-Z][A-Z0-9_]*)"'),
    re.compile(r'\(\s*env\s*,\s*"([A-Z][A-Z0-9_]*)"'),
]
NAME_LISTS = re.compile(r'let names = \[([^\]]*)\]')
LAUNCHER_LITERALS = re.compile(r'"([A-Z][A-Za-z0-9_]*_[A-Za-z0-9_]+)"')


def read_names(folders, launcher):
    names = set()
    for folder in folders:
        path = os.path.join(ROOT, folder)
        walked = [(os.path.dirname(path), [], [os.path.basename(path)])] if os.path.isfile(path) else os.walk(path)
        for directory, _, files in walked:
            if "Fuzzing" in directory:
                continue
            for file in files:
                if not file.endswith(".swift"):
                    continue
                with open(os.path.join(directory, file), encoding="utf-8") as handle:
                    text = handle.read()
                if launcher:
                    names.update(LAUNCHER_LITERALS.findall(text))
                    continue
                for pattern in READS:
                    names.update(pattern.findall(text))
                for listed in NAME_LISTS.findall(text):
                    names.update(re.findall(r'"([A-Z][A-Z0-9_]*)"', listed))
    return names


def documented():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    start = text.index("\n## Configuration\n")
    end = text.index("\n## ", start + 1)
    tables, heading = {}, None
    for line in text[start:end].splitlines():
        if line.startswith("### "):
            heading = line[4:].strip()
            tables.setdefault(heading, set())
        elif heading and line.startswith("| `"):
            tables[heading].update(re.findall(r"`([A-Z][A-Za-z0-9_]*)`", line.split("|")[1]))
    return tables


# The tables of variables every service (or every Postgres or Redis client) reads: a service
# reading one of those again needs no row of its own.
SHARED = ["All services", "Redis clients (gateway, tokens, identity)", "Postgres backends (identity, tokens, content-state)"]


def scope_names(heading):
    folders, belongs = SCOPES[heading]
    return {name for name in read_names(folders, heading.startswith("Set by")) if belongs(name)}


def main():
    tables = documented()
    failures = []
    shared = set().union(*(scope_names(heading) for heading in SHARED))
    for heading, (folders, _) in SCOPES.items():
        read = scope_names(heading)
        if heading not in SHARED:
            read -= shared
        if heading not in tables:
            failures.append(f"README.md has no table '### {heading}' under Configuration")
            continue
        for name in sorted(read - tables[heading]):
            failures.append(f"'{heading}': {name} is read by {', '.join(folders)} but has no row")
        for name in sorted(tables[heading] - read):
            failures.append(f"'{heading}': {name} has a row but {', '.join(folders)} does not read it")
    for heading in sorted(set(tables) - set(SCOPES)):
        failures.append(f"README.md table '### {heading}' is not one this check knows")
    for failure in failures:
        print(f"configuration docs: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"configuration docs: {sum(len(names) for names in tables.values())} variables in {len(tables)} tables match the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
