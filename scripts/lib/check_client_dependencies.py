#!/usr/bin/env python3
"""The client library that apps link (product LatchkeyClient) depends on Foundation and, at
most, the small client-side packages below: never on NIO, Hummingbird, libpq or any server
target of this package. Walks the product's targets and everything they depend on, in this
package and (through `swift package show-dependencies`) in the packages they use.

    python3 scripts/lib/check_client_dependencies.py              # exit 1 and one line per problem
    python3 scripts/lib/check_client_dependencies.py --dump F.json  # a saved `swift package dump-package`
"""
import json
import os
import subprocess
import sys

PRODUCT = "LatchkeyClient"
# Packages the client may use (issue 18): HTTP types and the OpenAPI client runtime over URLSession.
ALLOWED_PACKAGES = {"swift-http-types", "swift-openapi-runtime", "swift-openapi-urlsession"}
# Targets of this package the client may use: its own.
ALLOWED_TARGETS = {"LatchkeyClient"}


def dependencies(target):
    """(kind, name, package) for each dependency of a target in dump-package's JSON."""
    for dependency in target.get("dependencies", []):
        if "product" in dependency:
            name, package = dependency["product"][0], dependency["product"][1]
            yield "product", name, package
        elif "target" in dependency:
            yield "target", dependency["target"][0], None
        elif "byName" in dependency:
            yield "byName", dependency["byName"][0], None


def client_graph(package):
    """The targets of this package and the external packages the product reaches."""
    targets = {target["name"]: target for target in package["targets"]}
    products = [product for product in package["products"] if product["name"] == PRODUCT]
    if not products:
        raise SystemExit(f"no product {PRODUCT} in Package.swift")
    seen_targets, packages, pending = set(), set(), list(products[0]["targets"])
    while pending:
        name = pending.pop()
        if name in seen_targets:
            continue
        seen_targets.add(name)
        for kind, dependency, owner in dependencies(targets[name]):
            if kind == "product" and owner is not None:
                packages.add(owner.lower())
            elif dependency in targets:
                pending.append(dependency)
            else:  # a byName product of some package
                packages.add(dependency.lower())
    return seen_targets, packages


def package_closure(root, identities):
    """Every package the given packages depend on, from `swift package show-dependencies`."""
    tree = json.loads(subprocess.run(
        ["swift", "package", "show-dependencies", "--format", "json"], cwd=root, check=True, capture_output=True, text=True).stdout)
    found = set()

    def walk(node, inside):
        identity = node.get("identity", node.get("name", "")).lower()
        inside = inside or identity in identities
        if inside:
            found.add(identity)
        for child in node.get("dependencies", []):
            walk(child, inside)

    for child in tree.get("dependencies", []):
        walk(child, False)
    return found


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if len(argv) == 3 and argv[1] == "--dump":
        with open(argv[2], encoding="utf-8") as dump:
            package = json.load(dump)
    else:
        package = json.loads(subprocess.run(
            ["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
    targets, packages = client_graph(package)
    problems = [f"{PRODUCT} depends on target {name}, which is not a client target" for name in sorted(targets - ALLOWED_TARGETS)]
    problems += [f"{PRODUCT} depends on package {name}, which is not allowed for the client" for name in sorted(packages - ALLOWED_PACKAGES)]
    if packages and not problems and len(argv) == 1:
        problems += [
            f"{PRODUCT} reaches package {name} through {', '.join(sorted(packages))}"
            for name in sorted(package_closure(root, packages) - ALLOWED_PACKAGES)]
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{PRODUCT}: targets {', '.join(sorted(targets))}; packages {', '.join(sorted(packages)) or 'none'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
