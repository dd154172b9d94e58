"""The running stack the API checks talk to (scripts/lib/api_checks.sh starts it).

Environment: GATEWAY_URL (http://127.0.0.1:PORT), MOCK_IDP_URL, ADMIN_PASSWORD_FILE,
APPLE_AUDIENCE. Calls the checks make for themselves (sign-ins, admin logins) can leave from
another loopback address (127.0.0.2), so that the rate limits the tests provoke from
127.0.0.1 never lock the tests' own set-up out.
"""
import http.client
import json
import os
import sys
import urllib.parse

GATEWAY_URL = os.environ.get("GATEWAY_URL", "")
MOCK_IDP_URL = os.environ.get("MOCK_IDP_URL", "")
APPLE_AUDIENCE = os.environ.get("APPLE_AUDIENCE", "com.example.latchkey")
SIDE_ADDRESS = "127.0.0.2"


def require_stack():
    """Fails loudly (exit 2) when the stack is not configured or not answering."""
    if not GATEWAY_URL or not MOCK_IDP_URL or not os.environ.get("ADMIN_PASSWORD_FILE"):
        sys.exit("api checks: GATEWAY_URL, MOCK_IDP_URL and ADMIN_PASSWORD_FILE must name the running stack")
    try:
        status, _, _ = request("GET", GATEWAY_URL + "/healthz")
    except OSError as error:
        sys.exit(f"api checks: the gateway at {GATEWAY_URL} does not answer: {error}")
    if status != 200:
        sys.exit(f"api checks: the gateway at {GATEWAY_URL} answered /healthz with {status}")


def admin_password():
    with open(os.environ["ADMIN_PASSWORD_FILE"], encoding="utf-8") as file:
        return file.read().strip()


def request(method, url, body=None, headers=None, source=None):
    """One HTTP call; returns (status, headers as a dict of lower-case names, body bytes)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port, timeout=30, source_address=(source, 0) if source else None)
    try:
        all_headers = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        path = parts.path + ("?" + parts.query if parts.query else "")
        connection.request(method, path, body=data, headers=all_headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


class RateLimited(AssertionError):
    """A 429 where the caller expected success; `retry_after` is the gateway's Retry-After."""

    def __init__(self, message, retry_after):
        super().__init__(message)
        self.retry_after = retry_after


def json_call(method, url, body=None, headers=None, source=None, expect=200):
    status, response_headers, data = request(method, url, body, headers, source)
    if status == 429 and expect != 429:
        raise RateLimited(f"{method} {url}: rate limited", int(response_headers.get("retry-after", "60")))
    if status != expect:
        raise AssertionError(f"{method} {url}: expected {expect}, got {status}: {data[:300]!r}")
    return json.loads(data) if data else None, response_headers


def apple_identity_token(subject, email=None):
    claims = {"sub": subject, "aud": APPLE_AUDIENCE}
    if email:
        claims["email"] = email
    body, _ = json_call("POST", MOCK_IDP_URL + "/mock/apple/identity-token", claims)
    return body["token"]


def sign_in(subject, email=None, device_name="api checks", source=SIDE_ADDRESS):
    """A mock Apple sign-in through the gateway: the token response."""
    body, _ = json_call(
        "POST", GATEWAY_URL + "/api/v1/auth/apple",
        {"identity_token": apple_identity_token(subject, email), "device_name": device_name}, source=source)
    return body


def admin_cookie(source=SIDE_ADDRESS):
    """The value of a fresh `admin_session` cookie."""
    _, headers = json_call("POST", GATEWAY_URL + "/admin/login", {"password": admin_password()}, source=source, expect=204)
    cookie = headers.get("set-cookie", "")
    name, _, rest = cookie.partition("=")
    if name != "admin_session" or not rest:
        raise AssertionError(f"admin login set no admin_session cookie: {cookie!r}")
    return rest.split(";", 1)[0]
