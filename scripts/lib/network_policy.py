#!/usr/bin/env python3
"""NetworkPolicy semantics (networking.k8s.io/v1) over rendered manifests, without a cluster:
which pod may open a connection to which pod (or to an address outside the cluster) on which
port. scripts/lib/kubernetes_checks.py uses it to prove that exactly the flows Latchkey needs
are open (REQUIRED_FLOWS below) and every other one is closed.

The rules, as the Kubernetes documentation states them:
- a pod selected by no policy of a type (Ingress, Egress) is open in that direction; a pod
  selected by at least one is closed but for what the union of those policies' rules allows;
- policyTypes defaults to Ingress, plus Egress when the policy has an egress field;
- a connection needs both the source's egress and the destination's ingress to allow it;
- a rule without ports allows every port; a port entry without protocol is TCP, without port
  every port of that protocol, with endPort a range, with a name the destination's container
  port of that name;
- a rule without peers (to/from absent or empty) allows every peer; a peer with podSelector
  alone means pods of the policy's namespace, with namespaceSelector alone every pod of the
  matching namespaces, with both the matching pods of the matching namespaces;
- an ipBlock matches addresses outside the cluster only (pod addresses are assumed outside
  every ipBlock: the manifests use none for pods).
Label selectors: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist); every
namespace carries kubernetes.io/metadata.name.
"""

WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "Job"}
OUTSIDE = "outside"  # any address outside the cluster: clients, managed Postgres/Redis, DNS, Apple


class Endpoint:
    """A pod (namespace, name, labels, named container ports) or the outside of the cluster."""

    def __init__(self, name, namespace=None, labels=None, ports=None):
        self.name = name
        self.namespace = namespace
        self.labels = labels or {}
        self.ports = ports or {}  # (number, protocol) -> name or None

    @property
    def is_pod(self):
        return self.namespace is not None

    def __repr__(self):
        return self.name


def matches(selector, labels):
    """A LabelSelector; None or {} selects everything."""
    selector = selector or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or []:
        key, operator, values = expression["key"], expression["operator"], expression.get("values") or []
        if operator == "In" and labels.get(key) not in values:
            return False
        if operator == "NotIn" and key in labels and labels[key] in values:
            return False
        if operator == "Exists" and key not in labels:
            return False
        if operator == "DoesNotExist" and key in labels:
            return False
    return True


class Cluster:
    """The pods and namespaces of a rendering, plus pods added as probes, and its policies."""

    def __init__(self, objects):
        self.namespaces = {}
        self.pods = []
        self.policies = []
        for obj in objects:
            metadata = obj.get("metadata") or {}
            if obj["kind"] == "Namespace":
                self.add_namespace(metadata["name"], metadata.get("labels"))
        for obj in objects:
            metadata = obj.get("metadata") or {}
            namespace = metadata.get("namespace", "default")
            if obj["kind"] == "NetworkPolicy":
                self.add_namespace(namespace)
                self.policies.append((namespace, obj["spec"]))
            elif obj["kind"] in WORKLOADS:
                template = obj["spec"]["template"]
                ports = {}
                for container in template["spec"].get("containers", []):
                    for port in container.get("ports", []):
                        ports[(port["containerPort"], port.get("protocol", "TCP"))] = port.get("name")
                self.add_pod(metadata["name"], namespace, (template.get("metadata") or {}).get("labels"), ports)

    def add_namespace(self, name, labels=None):
        entry = self.namespaces.setdefault(name, {"kubernetes.io/metadata.name": name})
        entry.update(labels or {})

    def add_pod(self, name, namespace, labels=None, ports=None):
        self.add_namespace(namespace)
        pod = Endpoint(name if namespace == "latchkey" else f"{namespace}/{name}", namespace, labels, ports)
        self.pods.append(pod)
        return pod

    def selecting(self, pod, policy_type):
        """The policies of this type that select the pod."""
        found = []
        for namespace, spec in self.policies:
            types = spec.get("policyTypes") or (["Ingress", "Egress"] if "egress" in spec else ["Ingress"])
            if namespace == pod.namespace and policy_type in types and matches(spec.get("podSelector"), pod.labels):
                found.append((namespace, spec))
        return found

    def peer_matches(self, peer, policy_namespace, endpoint):
        if "ipBlock" in peer:
            return not endpoint.is_pod
        if not endpoint.is_pod:
            return False
        if "namespaceSelector" in peer:
            if not matches(peer["namespaceSelector"], self.namespaces.get(endpoint.namespace, {})):
                return False
        elif endpoint.namespace != policy_namespace:
            return False
        return matches(peer.get("podSelector"), endpoint.labels)

    @staticmethod
    def port_matches(entries, destination, port, protocol):
        if not entries:
            return True
        for entry in entries:
            if entry.get("protocol", "TCP") != protocol:
                continue
            wanted = entry.get("port")
            if wanted is None:
                return True
            if isinstance(wanted, str):
                if destination.ports.get((port, protocol)) == wanted:
                    return True
            elif wanted <= port <= entry.get("endPort", wanted):
                return True
        return False

    def allowed(self, direction, pod, peer, destination, port, protocol):
        """Whether the policies selecting pod (source for egress, destination for ingress) allow it."""
        policies = self.selecting(pod, direction)
        if not policies:
            return True
        field, peers_field = ("egress", "to") if direction == "Egress" else ("ingress", "from")
        for namespace, spec in policies:
            for rule in spec.get(field) or []:
                peers = rule.get(peers_field) or []
                if peers and not any(self.peer_matches(p, namespace, peer) for p in peers):
                    continue
                if self.port_matches(rule.get("ports"), destination, port, protocol):
                    return True
        return False

    def open(self, source, destination, port, protocol="TCP"):
        """Whether source may connect to destination:port/protocol."""
        if source.is_pod and not self.allowed("Egress", source, destination, destination, port, protocol):
            return False
        if destination.is_pod and not self.allowed("Ingress", destination, source, destination, port, protocol):
            return False
        return True


# What Latchkey needs, by the app.kubernetes.io/name of each pod (DESIGN.md section 2):
# "postgres" and "redis" are the pods of that name when the rendering runs them (the development
# overlay), and outside the cluster always (the base reaches a managed Postgres and Redis by port,
# which an overlay cannot take away). Probe pods stand for other namespaces.
RPC = {"identity": 7001, "tokens": 7002, "content-state": 7003}
OPS = {"gateway": 9000, "identity": 9001, "tokens": 9002, "content-state": 9003}
DATABASE_USERS = ("identity", "tokens", "content-state", "gateway")  # the gateway: its own content calls
REDIS_USERS = ("identity", "tokens", "gateway")
# Ports tried towards the outside of the cluster (pods are tried on every port they declare).
OUTSIDE_PORTS = [(53, "UDP"), (53, "TCP"), (80, "TCP"), (443, "TCP"), (5432, "TCP"), (6379, "TCP"),
                 (7001, "TCP"), (8080, "TCP")]


def add_probes(cluster):
    """Pods of other namespaces: anyone, a monitoring scraper, a labelled internal caller, an unlabelled one."""
    cluster.add_namespace("monitoring", {"latchkey.io/monitoring": "true"})
    cluster.add_namespace("callers", {"latchkey.io/internal-callers": "true"})
    return {
        "anyone": cluster.add_pod("anyone", "elsewhere"),
        "monitoring": cluster.add_pod("prometheus", "monitoring"),
        "caller": cluster.add_pod("read-filter", "callers", {"latchkey.io/internal-caller": "true"}),
        "unlabelled": cluster.add_pod("unlabelled", "callers"),
    }


def required_flows(cluster, probes, outside):
    """(source, destination, port, protocol) of every flow Latchkey needs."""
    ours = [pod for pod in cluster.pods if pod.namespace == "latchkey"]
    named = {pod.labels.get("app.kubernetes.io/name"): pod for pod in ours}
    flows = set()
    for pod in ours:  # every pod resolves names
        flows |= {(pod, outside, 53, "UDP"), (pod, outside, 53, "TCP")}
    gateway = named.get("gateway")
    if gateway:  # the public API, from anywhere
        for source in [outside] + list(probes.values()):
            flows.add((source, gateway, 8080, "TCP"))
    for service, port in OPS.items():
        if service in named:
            flows.add((probes["monitoring"], named[service], port, "TCP"))
    for service, port in RPC.items():
        if service in named:
            for source in (gateway, probes["caller"]):
                if source:
                    flows.add((source, named[service], port, "TCP"))
    for users, store, port in ((DATABASE_USERS, "postgres", 5432), (REDIS_USERS, "redis", 6379)):
        for user in users:
            if user in named:
                flows.add((named[user], outside, port, "TCP"))
                if store in named:
                    flows.add((named[user], named[store], port, "TCP"))
    if "identity" in named:  # Apple and Google
        flows.add((named["identity"], outside, 443, "TCP"))
        if "mock-idp" in named:
            flows.add((named["identity"], named["mock-idp"], 9400, "TCP"))
    return flows


def open_flows(cluster, outside):
    """Every flow the policies leave open that starts or ends at a Latchkey pod."""
    flows = set()
    sources = cluster.pods + [outside]
    for source in sources:
        for destination in cluster.pods + [outside]:
            if source is destination or "latchkey" not in (source.namespace, destination.namespace):
                continue
            ports = list(destination.ports) if destination.is_pod else OUTSIDE_PORTS
            for port, protocol in ports:
                if cluster.open(source, destination, port, protocol):
                    flows.add((source, destination, port, protocol))
    return flows


def check(objects):
    """Failures (strings) where the policies open a flow Latchkey does not need or close one it needs."""
    cluster = Cluster(objects)
    probes = add_probes(cluster)
    outside = Endpoint(OUTSIDE)
    required = required_flows(cluster, probes, outside)
    found = open_flows(cluster, outside)
    describe = lambda flow: f"{flow[0]} -> {flow[1]}:{flow[2]}/{flow[3]}"  # noqa: E731
    failures = [f"{describe(flow)} is closed, and the services need it" for flow in required - found]
    failures += [f"{describe(flow)} is open, and no service needs it" for flow in found - required]
    return sorted(failures), len(found)
