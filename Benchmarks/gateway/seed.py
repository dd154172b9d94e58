#!/usr/bin/env python3
"""Seeds the gateway benchmark: signs USERS users in through the gateway with mock Apple
tokens, gives each FAVORITES favorites, and writes one access token per line to
access_tokens.txt and one refresh token per line to refresh_tokens.txt in OUT_DIR.

usage: seed.py GATEWAY_URL MOCK_IDP_URL APPLE_AUDIENCE OUT_DIR USERS FAVORITES"""
import concurrent.futures
import json
import sys
import urllib.request
import uuid

gateway, mock, audience, out_dir, users, favorites = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])


def call(method, url, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
        return json.loads(text) if text else None


def seed_user(index):
    minted = call("POST", f"{mock}/mock/apple/identity-token", {"sub": f"bench-{uuid.uuid4()}", "aud": audience})
    session = call("POST", f"{gateway}/api/v1/auth/apple", {"identity_token": minted["token"], "device_name": f"bench {index}"})
    access = session["access_token"]
    for item in range(favorites):
        call("PUT", f"{gateway}/api/v1/favorites/item-{item}", {"position": item}, access)
    # Half the items read, for the state query.
    call("POST", f"{gateway}/api/v1/read/batch", {"item_ids": [f"item-{i}" for i in range(0, favorites, 2)], "read": True}, access)
    return access, session["refresh_token"]


with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
    sessions = list(pool.map(seed_user, range(users)))
with open(f"{out_dir}/access_tokens.txt", "w") as f:
    f.write("".join(access + "\n" for access, _ in sessions))
with open(f"{out_dir}/refresh_tokens.txt", "w") as f:
    f.write("".join(refresh + "\n" for _, refresh in sessions))
print(f"seeded {users} users with {favorites} favorites each")
