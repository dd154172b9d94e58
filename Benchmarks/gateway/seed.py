#!/usr/bin/env python3
"""Seeds the gateway benchmark through the public API (ours or the peer's alike): signs USERS
users in with mock Apple tokens and gives each FAVORITES favorites (half of them read), then
signs in CHAINS more users for the refresh chains and SIGNINS more for the sign-in scenario.
Writes to OUT_DIR one token per line: access_tokens.txt (the USERS users), refresh_tokens.txt
(one per chain) and apple_tokens.txt (the identity tokens the sign-in users signed in with).

usage: seed.py GATEWAY_URL MOCK_IDP_URL APPLE_AUDIENCE OUT_DIR USERS FAVORITES [CHAINS [SIGNINS]]"""
import concurrent.futures
import json
import sys
import urllib.request
import uuid

gateway, mock, audience, out_dir, users, favorites = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
chains = int(sys.argv[7]) if len(sys.argv) > 7 else users
signins = int(sys.argv[8]) if len(sys.argv) > 8 else 0


def call(method, url, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
        return json.loads(text) if text else None


def sign_in(index):
    minted = call("POST", f"{mock}/mock/apple/identity-token", {"sub": f"bench-{uuid.uuid4()}", "aud": audience})
    session = call("POST", f"{gateway}/api/v1/auth/apple", {"identity_token": minted["token"], "device_name": f"bench {index}"})
    return minted["token"], session


def seed_user(index):
    _, session = sign_in(index)
    access = session["access_token"]
    for item in range(favorites):
        call("PUT", f"{gateway}/api/v1/favorites/item-{item}", {"position": item}, access)
    # Half the items read, for the state query.
    call("POST", f"{gateway}/api/v1/read/batch", {"item_ids": [f"item-{i}" for i in range(0, favorites, 2)], "read": True}, access)
    return access, session["refresh_token"]


with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
    sessions = list(pool.map(seed_user, range(users)))
    refresh = sessions if chains == users else [(None, s["refresh_token"]) for _, s in pool.map(sign_in, range(chains))]
    apple = [token for token, _ in pool.map(sign_in, range(signins))]
with open(f"{out_dir}/access_tokens.txt", "w") as f:
    f.write("".join(access + "\n" for access, _ in sessions))
with open(f"{out_dir}/refresh_tokens.txt", "w") as f:
    f.write("".join(token + "\n" for _, token in refresh[:chains]))
with open(f"{out_dir}/apple_tokens.txt", "w") as f:
    f.write("".join(token + "\n" for token in apple))
print(f"seeded {users} users with {favorites} favorites each, {chains} refresh chains, {signins} sign-in users")
