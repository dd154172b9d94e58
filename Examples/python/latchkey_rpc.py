#!/usr/bin/env python3
"""A latchkey RPC client in ~80 lines of standard-library Python: the internal protocol
(docs/protocol.md) is language-neutral, and this is the proof that CI runs.

    SERVICE_TOKEN=... python3 latchkey_rpc.py HOST PORT METHOD ['{"param":"json"}']

Prints two JSON lines: the `hello` result (service, version, methods), then the call's
`result`, or its `error` (exit status 1 then). Frames: a 4-byte big-endian length, then
that many bytes of UTF-8 JSON.
"""
import json
import os
import socket
import struct
import sys

MAX_FRAME = 1 << 20


class RPCError(Exception):
    def __init__(self, error):
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error


class Connection:
    def __init__(self, host, port, timeout=30.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.next_id = 1

    def _send(self, envelope):
        payload = json.dumps(envelope, separators=(",", ":")).encode("utf-8")
        self.sock.sendall(struct.pack(">I", len(payload)) + payload)

    def _read_exactly(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("the server closed the connection")
            data += chunk
        return data

    def _receive(self):
        (length,) = struct.unpack(">I", self._read_exactly(4))
        if length > MAX_FRAME:
            raise ConnectionError(f"frame of {length} bytes is over the limit")
        return json.loads(self._read_exactly(length).decode("utf-8"))

    def call(self, method, params=None):
        """Sends one request and waits for its response (one call in flight at a time)."""
        request_id = self.next_id
        self.next_id += 1
        self._send({"v": 1, "id": request_id, "method": method, "params": params or {}})
        response = self._receive()
        if response.get("id") != request_id:
            raise ConnectionError(f"response for id {response.get('id')}, expected {request_id}")
        if "error" in response:
            raise RPCError(response["error"])
        return response.get("result")

    def hello(self, caller, token):
        """The first frame of every connection: proves the caller knows SERVICE_TOKEN."""
        return self.call("hello", {"service": caller, "token": token, "protocol": 1})

    def close(self):
        self.sock.close()


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    host, port, method = argv[1], int(argv[2]), argv[3]
    params = json.loads(argv[4]) if len(argv) == 5 else {}
    connection = Connection(host, port)
    try:
        print(json.dumps(connection.hello("python-example", os.environ["SERVICE_TOKEN"]), sort_keys=True))
        try:
            print(json.dumps({"result": connection.call(method, params)}, sort_keys=True))
            return 0
        except RPCError as failure:
            print(json.dumps({"error": failure.error}, sort_keys=True))
            return 1
    finally:
        connection.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
