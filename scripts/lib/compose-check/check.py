#!/usr/bin/env python3
"""What scripts/compose-check does to the running compose stack, with the standard library only.

  check.py sign-in                 sign in through the gateway with a mock Apple token, add a
                                   favorite, read it back
  check.py spread                  refresh through the gateway until every tokens replica has
                                   rotated refresh tokens, and print each replica's counters
  check.py load SECONDS CLIENTS    CLIENTS concurrent clients refresh and read for SECONDS; a
                                   third of the way in, one tokens replica is killed (SIGKILL);
                                   fails if any request that ends after the kill fails
  check.py rpc SECRETS_DIR         the backends' RPC from this machine (to the containers'
                                   addresses): plain TCP and TLS without a client certificate
                                   get no answer; with one of the authority's certificates,
                                   the read-filter caller of rpc_callers may call tokens.verify
                                   but gets `forbidden` for tokens.revokeAll and
                                   identity.deleteUser (counted in tokens' metrics), and a caller
                                   with another's token is refused

Environment: GATEWAY_URL, MOCK_IDP_URL, APPLE_AUDIENCE, PODMAN (the podman command, which may
carry options), COMPOSE_PROJECT. Exit status 0 when the check holds, 1 when it does not.
"""

import http.client
import json
import os
import shlex
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import urllib.parse

GATEWAY = urllib.parse.urlsplit(os.environ["GATEWAY_URL"])
MOCK_IDP = urllib.parse.urlsplit(os.environ["MOCK_IDP_URL"])
AUDIENCE = os.environ.get("APPLE_AUDIENCE", "com.example.latchkey")
PODMAN = shlex.split(os.environ.get("PODMAN", "podman"))
PROJECT = os.environ["COMPOSE_PROJECT"]
TIMEOUT = 10


class CheckFailed(Exception):
    pass


class Client:
    """One keep-alive HTTP connection; reconnects after an error."""

    def __init__(self, base):
        self.base = base
        self.connection = None

    def request(self, method, path, body=None, token=None):
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = "Bearer " + token
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.base.hostname, self.base.port, timeout=TIMEOUT)
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            payload = response.read()
            if response.getheader("Connection", "").lower() == "close":
                self.close()
            return response.status, (json.loads(payload) if payload else None)
        except (OSError, http.client.HTTPException) as error:
            self.close()
            return 0, {"error": type(error).__name__, "message": str(error)}

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def expect(status, body, wanted, what):
    if status != wanted:
        raise CheckFailed(f"{what}: HTTP {status} (wanted {wanted}): {json.dumps(body)[:300]}")
    return body


def sign_in(gateway, mock, subject):
    status, body = mock.request("POST", "/mock/apple/identity-token",
                                {"sub": subject, "aud": AUDIENCE, "email": f"{subject}@example.com"})
    token = expect(status, body, 200, "mock-idp mint")["token"]
    status, body = gateway.request("POST", "/api/v1/auth/apple",
                                   {"identity_token": token, "device_name": "compose-check"})
    return expect(status, body, 200, f"sign-in of {subject}")


# --- the tokens replicas -------------------------------------------------------------------

def service_containers(service):
    output = subprocess.run(
        PODMAN + ["ps", "--filter", f"label=io.podman.compose.project={PROJECT}",
                  "--filter", f"label=io.podman.compose.service={service}", "--format", "{{.Names}}"],
        check=True, capture_output=True, text=True).stdout
    return sorted(output.split())


def tokens_containers():
    return service_containers("tokens")


def metrics_text(name, port=9002):
    """GET /metrics of a container's ops port, from inside it (plain bash, the image has no curl)."""
    request = (f"exec 3<>/dev/tcp/127.0.0.1/{port} && "
               "printf 'GET /metrics HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' >&3 && "
               "cat <&3")
    return subprocess.run(PODMAN + ["exec", name, "bash", "-c", request],
                          check=True, capture_output=True, text=True, timeout=30).stdout


def replica_counters(name):
    """The replica's refresh rotations and tokens.refresh RPCs answered ok, from its ops port."""
    text = metrics_text(name)
    rotations = 0.0
    served = 0.0
    for line in text.splitlines():
        if line.startswith("tokens_refresh_rotations_total"):
            rotations += float(line.rsplit(" ", 1)[1])
        elif line.startswith("rpc_server_requests_total{") and 'method="tokens.refresh"' in line and 'code="ok"' in line:
            served += float(line.rsplit(" ", 1)[1])
    return {"tokens_refresh_rotations_total": rotations, 'rpc_server_requests_total{method="tokens.refresh",code="ok"}': served}


def print_counters(title):
    counters = {name: replica_counters(name) for name in tokens_containers()}
    print(title)
    for name, values in counters.items():
        print(f"  {name}: " + ", ".join(f"{key} {value:g}" for key, value in values.items()))
    return counters


# --- the commands ---------------------------------------------------------------------------

def command_sign_in():
    gateway, mock = Client(GATEWAY), Client(MOCK_IDP)
    tokens = sign_in(gateway, mock, "000001.compose-check")
    print(f"signed in: user {tokens.get('user', {}).get('id', '?')}, access token until {tokens.get('expires_at')}")
    status, body = gateway.request("PUT", "/api/v1/favorites/item-42", {"nickname": "compose check"},
                                   token=tokens["access_token"])
    if status not in (200, 201):
        raise CheckFailed(f"PUT /api/v1/favorites/item-42: HTTP {status}: {json.dumps(body)[:300]}")
    status, body = gateway.request("GET", "/api/v1/favorites", token=tokens["access_token"])
    body = expect(status, body, 200, "GET /api/v1/favorites")
    items = [entry.get("item_id") for entry in body.get("items", body.get("favorites", []))]
    if "item-42" not in items:
        raise CheckFailed(f"GET /api/v1/favorites does not list item-42: {json.dumps(body)[:300]}")
    print(f"favorite added and listed: {items}")


def command_spread():
    """Refreshes one chain until every replica has rotated at least 5 refresh tokens (the gateway
    resolves `tokens` again every 10 s, so a new replica gets calls within about that)."""
    gateway, mock = Client(GATEWAY), Client(MOCK_IDP)
    names = tokens_containers()
    if len(names) != 3:
        raise CheckFailed(f"expected 3 tokens replicas, found {names}")
    before = print_counters("tokens replicas before the refreshes:")
    refresh = sign_in(gateway, mock, "000002.compose-check")["refresh_token"]
    deadline = time.monotonic() + 90
    count = 0
    while True:
        for _ in range(30):
            status, body = gateway.request("POST", "/api/v1/auth/refresh", {"refresh_token": refresh})
            refresh = expect(status, body, 200, "refresh")["refresh_token"]
            count += 1
        now = {name: replica_counters(name) for name in names}
        spread = {name: now[name]["tokens_refresh_rotations_total"] - before[name]["tokens_refresh_rotations_total"]
                  for name in names}
        if all(value >= 5 for value in spread.values()):
            break
        if time.monotonic() > deadline:
            raise CheckFailed(f"after {count} refreshes not every replica rotated 5: {spread}")
    print_counters(f"tokens replicas after {count} refreshes through the gateway:")
    print("refreshes per replica: " + ", ".join(f"{name} {value:g}" for name, value in spread.items()))


def command_load(seconds, clients):
    gateway, mock = Client(GATEWAY), Client(MOCK_IDP)
    chains = [sign_in(gateway, mock, f"00010{index:02d}.compose-check") for index in range(clients)]
    start = time.monotonic()
    stop_at = start + seconds
    kill_at = start + seconds / 3
    kill = {"started": None, "done": None, "name": None}
    results = []  # (began, ended, what, status, detail)
    lock = threading.Lock()

    def client(index):
        http_client = Client(GATEWAY)
        refresh = chains[index]["refresh_token"]
        access = chains[index]["access_token"]
        mine = []
        step = 0
        while time.monotonic() < stop_at:
            began = time.monotonic()
            if step % 2 == 0:
                status, body = http_client.request("POST", "/api/v1/auth/refresh", {"refresh_token": refresh})
                what = "refresh"
                if status == 200:
                    refresh, access = body["refresh_token"], body["access_token"]
            else:
                status, body = http_client.request("GET", "/api/v1/favorites?limit=10", token=access)
                what = "read"
            ended = time.monotonic()
            detail = "" if status == 200 else json.dumps(body)[:200]
            mine.append((began, ended, what, status, detail))
            step += 1
        http_client.close()
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=client, args=(index,)) for index in range(clients)]
    for thread in threads:
        thread.start()
    time.sleep(max(0.0, kill_at - time.monotonic()))
    victim = tokens_containers()[0]
    kill["name"] = victim
    kill["started"] = time.monotonic()
    subprocess.run(PODMAN + ["kill", "--signal", "KILL", victim], check=True, capture_output=True)
    kill["done"] = time.monotonic()
    for thread in threads:
        thread.join()

    def failed(rows):
        return [row for row in rows if row[3] != 200]

    before = [row for row in results if row[1] < kill["started"]]
    after = [row for row in results if row[1] >= kill["started"]]
    in_flight = [row for row in after if row[0] < kill["done"]]
    refreshes = sum(1 for row in results if row[2] == "refresh")
    print(f"load: {clients} clients for {seconds:g} s, {len(results)} requests ({refreshes} refreshes, "
          f"{len(results) - refreshes} reads), {len(results) / seconds:.0f}/s")
    print(f"killed {victim} (SIGKILL) at {kill['started'] - start:.1f} s")
    print(f"  before the kill: {len(before)} requests, {len(failed(before))} failed")
    print(f"  in flight at the kill: {len(in_flight)} requests, {len(failed(in_flight))} failed")
    print(f"  ending after the kill: {len(after)} requests, {len(failed(after))} failed")
    for row in (failed(before) + failed(after))[:10]:
        print(f"  failed: {row[2]} at {row[0] - start:.2f}-{row[1] - start:.2f} s: HTTP {row[3]} {row[4]}")
    if failed(before) or failed(after):
        raise CheckFailed(f"{len(failed(before)) + len(failed(after))} requests failed")
    if len(after) < clients * 10:
        raise CheckFailed(f"only {len(after)} requests after the kill")
    print_counters(f"tokens replicas after the load ({victim} stays down: podman restarts no container it killed):")


# --- the internal RPC ---------------------------------------------------------------------------

def container_address(name):
    output = subprocess.run(
        PODMAN + ["inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", name],
        check=True, capture_output=True, text=True).stdout.split()
    if not output:
        raise CheckFailed(f"{name} has no address")
    return output[0]


def send_frame(connection, message):
    payload = json.dumps(message).encode()
    connection.sendall(struct.pack(">I", len(payload)) + payload)


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise EOFError("closed")
        data += chunk
    return data


def read_frame(connection):
    length = struct.unpack(">I", read_exactly(connection, 4))[0]
    if length > 1 << 20:
        raise ValueError(f"not a frame (length {length})")
    return json.loads(read_exactly(connection, length))


def hello(name, token):
    return {"v": 1, "id": 1, "method": "hello", "params": {"service": name, "token": token, "protocol": 1}}


def refused(address, port, what, context=None, server_name=None):
    """Sends a hello (as the gateway would) and fails unless no answer comes back."""
    raw = socket.create_connection((address, port), timeout=TIMEOUT)
    try:
        connection = context.wrap_socket(raw, server_hostname=server_name) if context else raw
        send_frame(connection, hello("compose-check", "no-token"))
        answer = read_frame(connection)
    except (OSError, EOFError, ValueError, ssl.SSLError) as error:
        print(f"  {what}: refused ({type(error).__name__}: {str(error)[:80]})")
        return
    finally:
        raw.close()
    raise CheckFailed(f"{what}: the server answered {json.dumps(answer)[:200]}")


class Caller:
    """One mutual TLS connection to a backend, after hello."""

    def __init__(self, context, address, port, server_name, name, token):
        self.connection = context.wrap_socket(socket.create_connection((address, port), timeout=TIMEOUT),
                                              server_hostname=server_name)
        self.next_id = 2
        send_frame(self.connection, hello(name, token))
        self.hello = read_frame(self.connection)

    def call(self, method, params):
        self.next_id += 1
        send_frame(self.connection, {"v": 1, "id": self.next_id, "method": method, "params": params})
        while True:
            answer = read_frame(self.connection)
            if answer.get("id") == self.next_id:
                return answer

    def close(self):
        self.connection.close()


def error_code(answer):
    return (answer.get("error") or {}).get("code")


def command_rpc(secrets):
    with open(os.path.join(secrets, "read_filter_token")) as file:
        read_filter_token = file.read().strip()
    ca = os.path.join(secrets, "tls", "ca.pem")
    anonymous = ssl.create_default_context(cafile=ca)
    context = ssl.create_default_context(cafile=ca)
    # Any certificate of the authority will do: the caller is named by hello, not by it.
    context.load_cert_chain(os.path.join(secrets, "tls", "gateway.pem"), os.path.join(secrets, "tls", "gateway-key.pem"))
    backends = [("identity", 7001), ("tokens", 7002), ("content-state", 7003)]
    for service, port in backends:
        address = container_address(service_containers(service)[0])
        refused(address, port, f"{service}:{port} over plain TCP")
        refused(address, port, f"{service}:{port} over TLS without a client certificate", anonymous, service)

    victim = tokens_containers()[0]
    address = container_address(victim)
    caller = Caller(context, address, 7002, "tokens", "read-filter", read_filter_token)
    if "result" not in caller.hello:
        raise CheckFailed(f"hello as read-filter: {json.dumps(caller.hello)[:200]}")
    print(f"  tokens over mutual TLS, hello as read-filter: may call {caller.hello['result'].get('methods')}")
    answer = caller.call("tokens.verify", {"access_token": "not-a-token"})
    if error_code(answer) == "forbidden":
        raise CheckFailed(f"read-filter may not call tokens.verify: {json.dumps(answer)[:200]}")
    print(f"  read-filter tokens.verify(not a token): {error_code(answer) or 'ok'} (allowed)")
    answer = caller.call("tokens.revokeAll", {"user_id": "00000000-0000-0000-0000-000000000000"})
    if error_code(answer) != "forbidden":
        raise CheckFailed(f"read-filter tokens.revokeAll was not forbidden: {json.dumps(answer)[:200]}")
    print("  read-filter tokens.revokeAll: forbidden")
    caller.close()
    counted = [line for line in metrics_text(victim).splitlines()
               if line.startswith("rpc_server_requests_total{") and 'method="tokens.revokeAll"' in line
               and 'code="forbidden"' in line and float(line.rsplit(" ", 1)[1]) >= 1]
    if not counted:
        raise CheckFailed(f"{victim} did not count the forbidden tokens.revokeAll")
    print(f"  {victim} counted it: {counted[0]}")

    identity = container_address(service_containers("identity")[0])
    caller = Caller(context, identity, 7001, "identity", "read-filter", read_filter_token)
    answer = caller.call("identity.deleteUser", {"user_id": "00000000-0000-0000-0000-000000000000"})
    caller.close()
    if error_code(answer) != "forbidden":
        raise CheckFailed(f"read-filter identity.deleteUser was not forbidden: {json.dumps(answer)[:200]}")
    print("  read-filter identity.deleteUser: forbidden")
    caller = Caller(context, identity, 7001, "identity", "gateway", read_filter_token)
    caller.close()
    if error_code(caller.hello) != "unauthenticated":
        raise CheckFailed(f"hello as gateway with read-filter's token: {json.dumps(caller.hello)[:200]}")
    print("  hello as gateway with read-filter's token: unauthenticated")


def main(argv):
    try:
        if argv[1:2] == ["sign-in"]:
            command_sign_in()
        elif argv[1:2] == ["spread"]:
            command_spread()
        elif argv[1:2] == ["load"] and len(argv) == 4:
            command_load(float(argv[2]), int(argv[3]))
        elif argv[1:2] == ["rpc"] and len(argv) == 3:
            command_rpc(argv[2])
        else:
            print(__doc__, file=sys.stderr)
            return 2
    except CheckFailed as error:
        print(f"compose-check: FAILED: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
