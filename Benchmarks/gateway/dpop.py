#!/usr/bin/env python3
"""DPoP-bound sessions for scripts/bench-gateway (DESIGN.md section 9.2; ours only: the peers
have no DPoP). Each proof is one ES256 JWS by the session's P-256 key, with a fresh `jti`
(the gateway refuses a replay) and `iat` now (it refuses one older than DPOP_PROOF_MAX_AGE,
60 s), so proofs are made just before the scenario that spends them, one per request.

usage:
  dpop.py seed GATEWAY_URL MOCK_IDP_URL APPLE_AUDIENCE OUT_DIR USERS FAVORITES
      signs USERS users in with a proof each (bound sessions) and gives each FAVORITES
      favorites, half read, as seed.py does for bearer sessions; writes OUT_DIR/dpop_sessions.json
  dpop.py proofs OUT_DIR GATEWAY_URL METHOD PATH COUNT THREADS
      writes OUT_DIR/dpop_requests.N.txt for N in 0..THREADS-1: COUNT lines in all, each
      `access token<TAB>proof` for METHOD GATEWAY_URL+PATH, round robin over the sessions"""
import base64
import concurrent.futures
import hashlib
import json
import sys
import time
import urllib.request
import uuid

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Key:
    def __init__(self, private=None):
        self.private = private or ec.generate_private_key(ec.SECP256R1())
        numbers = self.private.public_key().public_numbers()
        self.jwk = {"kty": "EC", "crv": "P-256", "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))}
        self.header = b64(json.dumps({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk}, separators=(",", ":")).encode())

    def proof(self, method, url, access_token=None):
        claims = {"jti": str(uuid.uuid4()), "htm": method, "htu": url, "iat": int(time.time())}
        if access_token:
            claims["ath"] = b64(hashlib.sha256(access_token.encode()).digest())
        signing_input = self.header + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
        r, s = decode_dss_signature(self.private.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))

    def pem(self):
        return self.private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()).decode()


def call(method, url, body=None, token=None, key=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if key:
        request.add_header("DPoP", key.proof(method, url, token))
    if token:
        request.add_header("Authorization", "DPoP " + token)
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
        return json.loads(text) if text else None


def seed(gateway, mock, audience, out_dir, users, favorites):
    def seed_user(index):
        key = Key()
        minted = call("POST", f"{mock}/mock/apple/identity-token", {"sub": f"bench-dpop-{uuid.uuid4()}", "aud": audience})
        session = call("POST", f"{gateway}/api/v1/auth/apple", {"identity_token": minted["token"], "device_name": f"bench dpop {index}"},
                       key=key)
        assert session["token_type"] == "DPoP", session
        access = session["access_token"]
        for item in range(favorites):
            call("PUT", f"{gateway}/api/v1/favorites/item-{item}", {"position": item}, access, key)
        call("POST", f"{gateway}/api/v1/read/batch", {"item_ids": [f"item-{i}" for i in range(0, favorites, 2)], "read": True},
             access, key)
        return {"access_token": access, "key": key.pem()}

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        sessions = list(pool.map(seed_user, range(users)))
    with open(f"{out_dir}/dpop_sessions.json", "w") as f:
        json.dump(sessions, f)
    print(f"seeded {users} DPoP-bound users with {favorites} favorites each")


def proofs(out_dir, gateway, method, path, count, threads):
    with open(f"{out_dir}/dpop_sessions.json") as f:
        sessions = [(s["access_token"], Key(serialization.load_pem_private_key(s["key"].encode(), None))) for s in json.load(f)]
    url = gateway + path
    files = [open(f"{out_dir}/dpop_requests.{n}.txt", "w") for n in range(threads)]
    for index in range(count):
        token, key = sessions[index % len(sessions)]
        files[index % threads].write(f"{token}\t{key.proof(method, url, token)}\n")
    for f in files:
        f.close()


if __name__ == "__main__":
    if len(sys.argv) == 8 and sys.argv[1] == "seed":
        seed(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), int(sys.argv[7]))
    elif len(sys.argv) == 8 and sys.argv[1] == "proofs":
        proofs(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), int(sys.argv[7]))
    else:
        sys.exit(__doc__)
