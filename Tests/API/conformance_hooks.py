"""schemathesis hooks (SCHEMATHESIS_HOOKS=conformance_hooks): every call carries a fresh bearer
token from a mock Apple sign-in, and admin routes the admin cookie. Both are renewed every
few seconds, because the run itself logs out, deletes the account, deactivates users and signs
the admin out; the renewal signs in again (a deleted account comes back as a new user, a
deactivated one is activated first)."""
import urllib.parse

import schemathesis

import stack

SUBJECT = "000001.conformance"
EMAIL = "conformance@example.com"


def signed_in_token(admin):
    try:
        return stack.sign_in(SUBJECT, EMAIL, device_name="schemathesis")["access_token"]
    except AssertionError as refused:
        if "user_inactive" not in str(refused):
            raise
    # The run deactivated its own user through the admin API: activate it again.
    cookie = {"Cookie": "admin_session=" + admin}
    page, _ = stack.json_call(
        "GET", stack.GATEWAY_URL + "/admin/api/users?" + urllib.parse.urlencode({"query": EMAIL}), headers=cookie,
        source=stack.SIDE_ADDRESS)
    for user in page["users"]:
        stack.json_call("POST", stack.GATEWAY_URL + f"/admin/api/users/{user['id']}/activate", headers=cookie,
                        source=stack.SIDE_ADDRESS)
    return stack.sign_in(SUBJECT, EMAIL, device_name="schemathesis")["access_token"]


@schemathesis.auth(refresh_interval=3)
class StackCredentials:
    def get(self, case, context):
        admin = stack.admin_cookie()
        return {"bearer": signed_in_token(admin), "admin": admin}

    def set(self, case, data, context):
        if case.operation.path.startswith("/admin"):
            case.cookies = {**(case.cookies or {}), "admin_session": data["admin"]}
        else:
            case.headers = {**(case.headers or {}), "Authorization": "Bearer " + data["bearer"]}
