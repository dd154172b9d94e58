"""schemathesis hooks (SCHEMATHESIS_HOOKS=conformance_hooks): every call carries a bearer token
from a mock Apple sign-in, and admin routes the admin cookie. The run itself logs out, deletes
the account, deactivates users and revokes sessions, so before each batch of calls the
credentials are checked and renewed when dead: a deleted account signs in as a new user, a
deactivated one is activated first. Set-up calls leave from 127.0.0.2 (stack.SIDE_ADDRESS), so
the rate limits the run provokes from 127.0.0.1 do not lock them out."""
import sys
import time
import traceback
import urllib.parse

import hypothesis
import schemathesis
from schemathesis.config._projects import ProjectConfig

import stack

SUBJECT = "000001.conformance"
EMAIL = "conformance@example.com"
credentials = {"admin": None, "bearer": None}


def _without_target_phase(settings_of):
    """Hypothesis' target phase (hill-climbing the success rate schemathesis reports with
    `hypothesis.target`) now and then dies inside Hypothesis itself: `Optimiser.hill_climb` reads
    `current_data.nodes[i]` after an improvement made `current_data` shorter (IndexError: tuple
    index out of range, Hypothesis 6.155 to 6.170.17, the newest), and schemathesis reports the
    operation as errored though the API answered every case. The run keeps every other phase
    (generate, shrink, ...); only the steering toward accepted inputs is left out."""
    def settings(self, **options):
        chosen = settings_of(self, **options)
        return hypothesis.settings(
            chosen, phases=tuple(phase for phase in chosen.phases if phase is not hypothesis.Phase.target))
    return settings


ProjectConfig.get_hypothesis_settings = _without_target_phase(ProjectConfig.get_hypothesis_settings)


def answers(path, headers):
    status, _, _ = stack.request("GET", stack.GATEWAY_URL + path, headers=headers, source=stack.SIDE_ADDRESS)
    return status == 200


def admin_cookie():
    cookie = credentials["admin"]
    if cookie and answers("/admin/api/users?limit=1", {"Cookie": "admin_session=" + cookie}):
        return cookie
    credentials["admin"] = waiting_out_rate_limits("admin login", stack.admin_cookie)
    return credentials["admin"]


def waiting_out_rate_limits(what, call):
    """`call()`, tried up to three times, each 429 waited out as the gateway's Retry-After says."""
    for _ in range(3):
        try:
            return call()
        except stack.RateLimited as limited:
            time.sleep(limited.retry_after + 1)
    raise AssertionError(f"the {what} stayed rate limited")


def signed_in_token():
    """A fresh access token of the run's user. The run ends its sessions often (logout, session
    revocation, account deletion): on a fast machine the renewals alone can pass the sign-in
    limit of the side address, so its 429s are waited out too."""
    return waiting_out_rate_limits(
        "sign-in", lambda: stack.sign_in(SUBJECT, EMAIL, device_name="schemathesis")["access_token"])


def sign_in():
    try:
        return signed_in_token()
    except AssertionError as refused:
        if "user_inactive" not in str(refused):
            raise
    # The run deactivated its own user through the admin API: activate it again.
    cookie = {"Cookie": "admin_session=" + admin_cookie()}
    page, _ = stack.json_call(
        "GET", stack.GATEWAY_URL + "/admin/api/users?" + urllib.parse.urlencode({"query": EMAIL}), headers=cookie,
        source=stack.SIDE_ADDRESS)
    for user in page["users"]:
        stack.json_call("POST", stack.GATEWAY_URL + f"/admin/api/users/{user['id']}/activate", headers=cookie,
                        source=stack.SIDE_ADDRESS)
    return signed_in_token()


def bearer_token():
    token = credentials["bearer"]
    if token and answers("/api/v1/auth/me", {"Authorization": "Bearer " + token}):
        return token
    credentials["bearer"] = sign_in()
    return credentials["bearer"]


@schemathesis.auth(refresh_interval=1)
class StackCredentials:
    def get(self, case, context):
        try:
            return {"admin": admin_cookie(), "bearer": bearer_token()}
        except Exception:
            # schemathesis reports only that the fetch failed; say why.
            traceback.print_exc(file=sys.stderr)
            raise

    def set(self, case, data, context):
        if case.operation.path == "/admin/logout":
            # Signing out without a cookie is valid (204); with the run's cookie it would end the
            # session every other admin call uses. The browser test signs out for real.
            return
        if case.operation.path.startswith("/admin"):
            case.cookies = {**(case.cookies or {}), "admin_session": data["admin"]}
        else:
            case.headers = {**(case.headers or {}), "Authorization": "Bearer " + data["bearer"]}
