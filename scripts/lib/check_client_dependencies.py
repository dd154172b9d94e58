#!/usr/bin/env python3
"""The client library that apps link (product LatchkeyClient) is its own package, Client/, with
no dependency at all: an app that adds it resolves nothing of the server's (NIO, Hummingbird,
libpq, ...) and keeps its own platform floor. Checks Client/Package.swift through
`swift package dump-package`: no package dependencies, the product made of the client's own
target only, every target depending on targets of the package alone.

    python3 scripts/lib/check_client_dependencies.py              # exit 1 and one line per problem
    python3 scripts/lib/check_client_dependencies.py --dump F.json  # a saved dump of Client/Package.swift
"""
import json
import os
import subprocess
import sys

PRODUCT = "LatchkeyClient"
# The targets the product may be made of.
ALLOWED_TARGETS = {"LatchkeyClient"}


def problems_of(package):
    problems = [f"Client/Package.swift depends on package {dependency.get('identity') or dependency}"
                for dependency in package.get("dependencies", [])]
    products = [product for product in package["products"] if product["name"] == PRODUCT]
    if not products:
        return problems + [f"Client/Package.swift has no product {PRODUCT}"]
    names = {target["name"] for target in package["targets"]}
    problems += [f"{PRODUCT} is made of target {name}, which is not a client target"
                 for name in sorted(set(products[0]["targets"]) - ALLOWED_TARGETS)]
    for target in package["targets"]:
        for dependency in target.get("dependencies", []):
            if "product" in dependency:
                problems.append(f"target {target['name']} depends on product {dependency['product'][0]} of another package")
            elif "byName" in dependency and dependency["byName"][0] not in names:
                problems.append(f"target {target['name']} depends on {dependency['byName'][0]}, not a target of the client package")
    return problems


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if len(argv) == 3 and argv[1] == "--dump":
        with open(argv[2], encoding="utf-8") as dump:
            package = json.load(dump)
    else:
        package = json.loads(subprocess.run(
            ["swift", "package", "--package-path", os.path.join(root, "Client"), "dump-package"],
            check=True, capture_output=True, text=True).stdout)
    problems = problems_of(package)
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{PRODUCT}: its own package (Client/), targets {', '.join(sorted(t['name'] for t in package['targets']))}; no dependencies")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
