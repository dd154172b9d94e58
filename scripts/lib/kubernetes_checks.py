#!/usr/bin/env python3
"""Checks of the Kubernetes manifests (deploy/kubernetes), run by scripts/test through
scripts/lib/kubernetes_checks.sh in a virtual environment with kubernetes-validate and PyYAML:

1. renders the base and every overlay (scripts/lib/kustomize_render.py) into OUT/NAME.yaml and
   checks that `kubectl kustomize` renders the same objects (kubectl is required: without it
   the check fails rather than pass unchecked; KUBECTL names another binary);
2. validates every rendered object with kubernetes-validate --strict (unknown fields are
   errors) against Kubernetes KUBERNETES_VERSION;
3. checks what the schemas cannot: every environment variable set on a Latchkey container
   (env and the keys of ConfigMaps given by envFrom) is one the Swift sources read; Secrets
   and ConfigMaps referred to exist (ConfigMaps rendered, Secrets the ones docs/deploy.md
   says to create, with those keys); Services, PodDisruptionBudgets and NetworkPolicies select
   pods that exist; the HorizontalPodAutoscaler scales a Deployment; the gateway's endpoints
   name headless Services with those ports; every pod runs non-root with a read-only root,
   no privilege escalation, no capabilities and the RuntimeDefault seccomp profile, with
   resources, and the Latchkey ones with probes on the ops port; mock-idp is in no base;
4. TLS is on in every Latchkey pod (the RPC with its own certificate, named callers on the
   backends, the Redis and Postgres authorities mounted where the variables say);
5. computes from the NetworkPolicies which pod may reach which pod or outside address on which
   port (scripts/lib/network_policy.py) and checks that exactly the flows the services need are
   open: a flow no service needs, or a needed one closed, is a failure;
6. the Redis ACL users (deploy/kubernetes/redis-users.acl) grant each service exactly the Redis
   commands its Swift sources send (the connection's AUTH and SELECT, the readiness PING,
   SUBSCRIBE where it subscribes), and the default user is off.

    python3 scripts/lib/kubernetes_checks.py OUT
Exits non-zero on any failure, naming each.
"""
import os
import re
import shutil
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kustomize_render  # noqa: E402
import network_policy  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KUBERNETES_DIR = os.path.join(ROOT, "deploy", "kubernetes")
# The newest Kubernetes the pinned kubernetes-validate (1.37.0) has schemas for.
KUBERNETES_VERSION = os.environ.get("KUBERNETES_VERSION", "1.37.0")
SOURCE_FOLDERS = ["Services", "Shared", "Tools"]

# The Secrets an operator creates (docs/deploy.md) and their keys; manifests may use no other.
SECRETS = {
    "latchkey-service-token": {"service-token"},
    # Each backend its own role (identity-url, ...), the gateway one that reads and writes schema content's tables
    # (gateway-url, optional); the development overlay's Postgres makes the roles from the
    # *-password keys, and password is its admin role's.
    # ca.crt: the authority of the Postgres server's certificate (sslrootcert); server.* the
    # development Postgres' own.
    "latchkey-database": {"identity-url", "tokens-url", "content-state-url", "gateway-url",
                          "password", "identity-password", "tokens-password", "content-state-password", "gateway-password",
                          "ca.crt", "server.crt", "server.key"},
    # Each Redis client its own ACL user; users.acl is the development Redis' ACL file; ca.crt the
    # authority of the Redis server's certificate (rediss://), server.* the development Redis' own.
    "latchkey-redis": {"identity-url", "tokens-url", "gateway-url", "users.acl", "ca.crt", "server.crt", "server.key"},
    # The internal RPC's mutual TLS (an authority, a certificate and key a service) and its named callers.
    "latchkey-rpc": {"ca.crt", "callers"} | {f"{service}.{kind}" for service in ("gateway", "identity", "tokens", "content-state")
                                             for kind in ("crt", "key")},
    "latchkey-admin": {"password-hash"},
    "latchkey-signing-keys": None,  # mounted whole: one NAME.pem per key
}
# The ops port of each Latchkey executable (DESIGN.md section 3, the Swift defaults).
OPS_PORTS = {"gateway": 9000, "identity": 9001, "tokens": 9002, "content-state": 9003}
RPC_PORTS = {"identity": 7001, "tokens": 7002, "content-state": 7003}
WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet"}


class Checker:
    def __init__(self):
        self.failures = []

    def fail(self, where, message):
        self.failures.append(f"{where}: {message}")


def renderings():
    """(name, folder) of the base and of every overlay."""
    found = [("base", os.path.join(KUBERNETES_DIR, "base"))]
    overlays = os.path.join(KUBERNETES_DIR, "overlays")
    for name in sorted(os.listdir(overlays)):
        if os.path.exists(os.path.join(overlays, name, "kustomization.yaml")):
            found.append((name, os.path.join(overlays, name)))
    return found


def identity(obj):
    return (obj.get("kind"), obj["metadata"].get("namespace"), obj["metadata"]["name"])


def compare_with_kubectl(checker, name, folder, objects):
    kubectl = shutil.which(os.environ.get("KUBECTL", "kubectl"))
    if not kubectl:
        checker.fail(name, "kubectl is not installed: the rendering cannot be compared with kubectl kustomize "
                     "(install kubectl with kustomize v5, or name it in KUBECTL)")
        return
    result = subprocess.run([kubectl, "kustomize", folder], capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        checker.fail(name, f"kubectl kustomize failed: {result.stderr.strip()}")
        return
    theirs = {identity(obj): obj for obj in yaml.safe_load_all(result.stdout) if obj}
    ours = {identity(obj): obj for obj in objects}
    for key in sorted(set(ours) | set(theirs), key=str):
        if ours.get(key) != theirs.get(key):
            checker.fail(name, f"{key}: kustomize_render.py and kubectl kustomize disagree")
    print(f"kubernetes checks: {name}: kubectl kustomize renders the same {len(theirs)} objects")


def validate(checker, name, path):
    result = subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet", "--no-warn",
         "-k", KUBERNETES_VERSION, path],
        capture_output=True, text=True, timeout=300)
    output = (result.stdout + result.stderr).strip()
    if result.returncode != 0:
        checker.fail(name, f"kubernetes-validate {KUBERNETES_VERSION} --strict:\n{output}")
    else:
        print(f"kubernetes checks: {name}: kubernetes-validate {KUBERNETES_VERSION} --strict: valid")


def source_names():
    """Every string literal of NAME-like shape in the Swift sources, and the variables the image's
    entrypoint (deploy/docker-entrypoint.sh) reads."""
    with open(os.path.join(ROOT, "deploy", "docker-entrypoint.sh"), encoding="utf-8") as handle:
        names = set(re.findall(r"\$\{?([A-Z][A-Z0-9_]+)", handle.read()))
    pattern = re.compile(r'"([A-Z][A-Z0-9_]+)"')
    for folder in SOURCE_FOLDERS:
        for directory, _, files in os.walk(os.path.join(ROOT, folder)):
            for file in files:
                if file.endswith(".swift"):
                    with open(os.path.join(directory, file), encoding="utf-8") as handle:
                        names.update(pattern.findall(handle.read()))
    return names


# Redis commands the sources may send; an array literal starting with one of these is a command.
REDIS_COMMANDS = {"GET", "MGET", "SET", "DEL", "EXISTS", "INCR", "INCRBY", "DECR", "EXPIRE", "PEXPIRE", "TTL", "PUBLISH",
                  "SUBSCRIBE", "PSUBSCRIBE", "EVAL", "EVALSHA", "HSET", "HGET", "HDEL", "SADD", "SREM", "ZADD",
                  "ZREM", "KEYS", "SCAN", "FLUSHALL", "FLUSHDB", "GETDEL", "SETEX", "SETNX", "UNLINK"}
REDIS_USERS = {"identity": "identity", "tokens": "tokens", "gateway": "gateway"}


def redis_commands_sent(service):
    """The Redis commands a service's sources send, plus what every connection sends."""
    commands = {"AUTH", "SELECT", "PING"}
    pattern = re.compile(r'\[\s*"([A-Z]+)"')
    for directory, _, files in os.walk(os.path.join(ROOT, "Services", service, "Sources")):
        for file in files:
            if not file.endswith(".swift"):
                continue
            with open(os.path.join(directory, file), encoding="utf-8") as handle:
                text = handle.read()
            if "redis" not in text.lower():
                continue
            commands.update(name for name in pattern.findall(text) if name in REDIS_COMMANDS)
            if re.search(r"redis\.subscribe\(", text):
                commands.add("SUBSCRIBE")
    return commands


def check_redis_users(checker):
    path = os.path.join(KUBERNETES_DIR, "redis-users.acl")
    users = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            words = line.split()
            if words and words[0] == "user":
                users[words[1]] = words[2:]
    where = "redis-users.acl"
    default = users.pop("default", [])
    if "off" not in default or any(word.startswith(("+", "~", "&", "%")) for word in default):
        checker.fail(where, "the default user is not off without rights")
    for service, user in REDIS_USERS.items():
        rules = users.pop(user, None)
        if rules is None:
            checker.fail(where, f"no user {user} for {service}")
            continue
        if "-@all" not in rules or any(word.startswith("+@") or word in ("allkeys", "allchannels", "~*", "&*")
                                       for word in rules):
            checker.fail(where, f"user {user} does not start from -@all, or grants whole categories, keys or channels")
        granted = {word[1:].upper() for word in rules if word.startswith("+")}
        sent = redis_commands_sent(service)
        for command in sorted(sent - granted):
            checker.fail(where, f"user {user} may not run {command}, which {service} sends")
        for command in sorted(granted - sent):
            checker.fail(where, f"user {user} may run {command}, which {service} never sends")
    for user in users:
        checker.fail(where, f"user {user} belongs to no service")
    if not checker.failures:
        print(f"kubernetes checks: {where}: each Redis user may run exactly the commands its service sends")


def pods(objects):
    for obj in objects:
        if obj["kind"] in WORKLOADS:
            yield obj, obj["spec"]["template"]


def selects(selector, labels):
    return all(labels.get(k) == v for k, v in (selector or {}).items())


def mounted_file(container, pod, path):
    """The (Secret, key) a container reads at `path` through a Secret volume's item, or None."""
    volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        prefix = mount["mountPath"].rstrip("/") + "/"
        secret = (volumes.get(mount["name"]) or {}).get("secret")
        if not path.startswith(prefix) or not secret:
            continue
        for item in secret.get("items", []):
            if item["path"] == path[len(prefix):]:
                return secret["secretName"], item["key"]
    return None


def check_transport_security(checker, here, executable, container, pod):
    """DESIGN.md section 9.5, on in every Latchkey pod: the RPC on mutual TLS with this
    service's own certificate, backends admitting named callers only, Redis over TLS with its
    server's authority, and the Postgres authority mounted where DATABASE_URL's sslrootcert
    says (create-secrets.sh refuses a URL without sslmode=verify-full)."""
    environment = {entry["name"]: entry.get("value") for entry in container.get("env", [])}
    wanted = {"RPC_TLS_CERT_FILE": ("latchkey-rpc", f"{executable}.crt"),
              "RPC_TLS_KEY_FILE": ("latchkey-rpc", f"{executable}.key"),
              "RPC_TLS_CA_FILE": ("latchkey-rpc", "ca.crt")}
    if executable in RPC_PORTS:
        wanted["RPC_CALLERS"] = ("latchkey-rpc", "callers")
    if "REDIS_URL" in environment:
        wanted["REDIS_TLS_CA_FILE"] = ("latchkey-redis", "ca.crt")
    for variable, source in wanted.items():
        path = environment.get(variable)
        if not path:
            checker.fail(here, f"{variable} is not set: TLS and named callers are on in every deployment")
        elif mounted_file(container, pod, path) != source:
            checker.fail(here, f"{variable}={path} is not Secret {source[0]} key {source[1]} mounted there")
    for variable in ("DATABASE_URL", "CONTENT_DATABASE_URL"):
        if variable in environment and mounted_file(container, pod, "/etc/latchkey/postgres/ca.crt") != \
                ("latchkey-database", "ca.crt"):
            checker.fail(here, f"the Postgres authority ({variable}'s sslrootcert) is not mounted at /etc/latchkey/postgres/ca.crt")


def check_objects(checker, name, objects, read_names):
    by_kind = {}
    for obj in objects:
        by_kind.setdefault(obj["kind"], {})[obj["metadata"]["name"]] = obj
    config_maps = by_kind.get("ConfigMap", {})
    services = by_kind.get("Service", {})
    pod_labels = [template["metadata"].get("labels", {}) for _, template in pods(objects)]

    if name == "base" and any("mock-idp" in obj["metadata"]["name"] for obj in objects):
        checker.fail(name, "mock-idp belongs in a development overlay, never in the base")

    for workload, template in pods(objects):
        where = f"{name}: {workload['kind']}/{workload['metadata']['name']}"
        spec = template["spec"]
        if not selects(workload["spec"]["selector"].get("matchLabels"), template["metadata"].get("labels", {})):
            checker.fail(where, "selector does not match the pod template's labels")
        pod_security = spec.get("securityContext", {})
        if pod_security.get("runAsNonRoot") is not True:
            checker.fail(where, "runAsNonRoot is not true")
        if (pod_security.get("seccompProfile") or {}).get("type") != "RuntimeDefault":
            checker.fail(where, "seccompProfile is not RuntimeDefault")
        if spec.get("automountServiceAccountToken") is not False:
            checker.fail(where, "automountServiceAccountToken is not false")
        for volume in spec.get("volumes", []):
            secret = volume.get("secret")
            if secret and secret["secretName"] not in SECRETS:
                checker.fail(where, f"volume of Secret {secret['secretName']}, not one docs/deploy.md creates")
            elif secret and SECRETS[secret["secretName"]] is not None:
                for item in secret.get("items", []):
                    if item["key"] not in SECRETS[secret["secretName"]]:
                        checker.fail(where, f"volume of Secret {secret['secretName']} key {item['key']}, "
                                            "not one docs/deploy.md creates")
        for container in spec.get("initContainers", []) + spec["containers"]:
            here = f"{where} container {container['name']}"
            security = container.get("securityContext", {})
            if security.get("allowPrivilegeEscalation") is not False:
                checker.fail(here, "allowPrivilegeEscalation is not false")
            if security.get("readOnlyRootFilesystem") is not True:
                checker.fail(here, "readOnlyRootFilesystem is not true")
            if (security.get("capabilities") or {}).get("drop") != ["ALL"]:
                checker.fail(here, "capabilities do not drop ALL")
            resources = container.get("resources", {})
            if not resources.get("requests") or "memory" not in resources.get("limits", {}):
                checker.fail(here, "no resource requests or memory limit")
            for entry in container.get("env", []):
                reference = (entry.get("valueFrom") or {}).get("secretKeyRef")
                if reference:
                    keys = SECRETS.get(reference["name"], set())
                    if reference["name"] not in SECRETS or (keys is not None and reference["key"] not in keys):
                        checker.fail(here, f"{entry['name']} from Secret {reference['name']} key {reference['key']}, "
                                           "not one docs/deploy.md creates")
                reference = (entry.get("valueFrom") or {}).get("configMapKeyRef")
                if reference and reference["key"] not in config_maps.get(reference["name"], {}).get("data", {}):
                    checker.fail(here, f"{entry['name']} from missing ConfigMap key {reference['name']}/{reference['key']}")
            if not container["image"].split("@")[0].rsplit(":", 1)[0].endswith("latchkey"):
                continue  # Postgres, Redis: their own variables
            variables = [entry["name"] for entry in container.get("env", [])]
            for source in container.get("envFrom", []):
                reference = source.get("configMapRef")
                if not reference or reference["name"] not in config_maps:
                    checker.fail(here, f"envFrom {source}: not a rendered ConfigMap")
                    continue
                variables += list(config_maps[reference["name"]].get("data", {}))
            for variable in variables:
                if variable not in read_names:
                    checker.fail(here, f"sets {variable}, which no Swift source reads (a typo?)")
            executable = (container.get("args") or [""])[0]
            if executable in OPS_PORTS:
                ports = {port.get("name"): port["containerPort"] for port in container.get("ports", [])}
                if ports.get("ops") != OPS_PORTS[executable]:
                    checker.fail(here, f"ops port is {ports.get('ops')}, {executable} serves it on {OPS_PORTS[executable]}")
                for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
                    get = (container.get(probe) or {}).get("httpGet") or {}
                    if get.get("path") != path or get.get("port") not in ("ops", OPS_PORTS[executable]):
                        checker.fail(here, f"{probe} is not GET {path} on the ops port")
                if not (container.get("lifecycle") or {}).get("preStop"):
                    checker.fail(here, "no preStop hook (endpoints are removed before the drain)")
            if executable in OPS_PORTS:
                check_transport_security(checker, here, executable, container, spec)
            if executable == "gateway":
                environment = {entry["name"]: entry.get("value") for entry in container.get("env", [])}
                for variable, backend in (("IDENTITY_ENDPOINTS", "identity"), ("TOKENS_ENDPOINTS", "tokens"),
                                          ("CONTENT_STATE_ENDPOINTS", "content-state")):
                    for endpoint in (environment.get(variable) or "").split(","):
                        host, _, port = endpoint.partition(":")
                        service = services.get(host)
                        if service is None:
                            checker.fail(here, f"{variable}={environment.get(variable)}: no Service {host}")
                        elif service["spec"].get("clusterIP") != "None":
                            checker.fail(here, f"{variable}: Service {host} is not headless (clusterIP: None)")
                        elif int(port or 0) not in [p["port"] for p in service["spec"]["ports"]] or \
                                int(port or 0) != RPC_PORTS[backend]:
                            checker.fail(here, f"{variable}: port {port} is not {host}'s RPC port")

    for kind, field in (("Service", ("spec", "selector")), ("PodDisruptionBudget", ("spec", "selector", "matchLabels")),
                        ("NetworkPolicy", ("spec", "podSelector", "matchLabels"))):
        for obj in by_kind.get(kind, {}).values():
            selector = obj
            for part in field:
                selector = (selector or {}).get(part)
            if selector and not any(selects(selector, labels) for labels in pod_labels):
                checker.fail(f"{name}: {kind}/{obj['metadata']['name']}", f"selects no pod ({selector})")
    for hpa in by_kind.get("HorizontalPodAutoscaler", {}).values():
        target = hpa["spec"]["scaleTargetRef"]
        if target["name"] not in by_kind.get(target["kind"], {}):
            checker.fail(f"{name}: HorizontalPodAutoscaler/{hpa['metadata']['name']}", f"no {target['kind']} {target['name']}")
        elif "replicas" in by_kind[target["kind"]][target["name"]]["spec"]:
            checker.fail(f"{name}: {target['kind']}/{target['name']}", "sets replicas, which its autoscaler owns")
    if "default-deny" not in by_kind.get("NetworkPolicy", {}):
        checker.fail(name, "no default-deny NetworkPolicy")


def main(argv):
    if len(argv) != 2:
        print("usage: kubernetes_checks.py OUT", file=sys.stderr)
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    checker = Checker()
    read_names = source_names()
    check_redis_users(checker)
    for name, folder in renderings():
        try:
            objects = kustomize_render.render(folder)
        except (kustomize_render.RenderError, OSError, yaml.YAMLError) as error:
            checker.fail(name, f"cannot render: {error}")
            continue
        path = os.path.join(out, f"{name}.yaml")
        with open(path, "w", encoding="utf-8") as handle:
            yaml.safe_dump_all(objects, handle, sort_keys=False)
        print(f"kubernetes checks: {name}: {len(objects)} objects rendered into {path}")
        compare_with_kubectl(checker, name, folder, objects)
        validate(checker, name, path)
        check_objects(checker, name, objects, read_names)
        failures, flows = network_policy.check(objects)
        for failure in failures:
            checker.fail(f"{name}: network policies", failure)
        if not failures:
            print(f"kubernetes checks: {name}: the network policies open exactly the {flows} flows the services need")
    for failure in checker.failures:
        print(f"kubernetes checks: FAILED {failure}", file=sys.stderr)
    if not checker.failures:
        print("kubernetes checks: passed")
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
