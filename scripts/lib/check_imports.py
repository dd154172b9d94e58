#!/usr/bin/env python3
"""Every module a target imports is declared in Package.swift (a target or a product it
depends on directly), not reached through another target's dependencies. SwiftPM's
--explicit-target-dependency-import-check sees only targets of this package that are not
dependencies at all; this check covers transitive ones and products too.

    python3 scripts/lib/check_imports.py        # prints each undeclared import; exit 1 if any
"""
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the platform: always there, never declared.
PLATFORM = {
    "Foundation", "FoundationNetworking", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch",
    "Synchronization", "Testing", "XCTest", "_Concurrency", "os", "Security", "AuthenticationServices",
}
IMPORT = re.compile(r"^\s*(?:@testable\s+|@_exported\s+|@preconcurrency\s+)*import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def declared(target):
    names = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    package = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
    problems = []
    for target in package["targets"]:
        if target["type"] == "system":
            continue
        folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])
        allowed = declared(target) | PLATFORM | {target["name"]}
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as source:
                    for module in sorted(set(IMPORT.findall(source.read())) - allowed):
                        problems.append(f"{os.path.relpath(path, root)}: imports {module}, which target {target['name']} does not declare")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
