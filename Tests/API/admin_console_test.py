"""The admin console in a real browser (headless Chromium from Debian, driven by Selenium)
against the running stack (scripts/lib/api_checks.sh): a wrong password is refused with a
message; sign in; search a user a mock sign-in created; open it; deactivate it and see its
token refused; activate; revoke its sessions; delete it after a confirmation; sign out; too
many wrong passwords show the rate-limit message. The page must carry its
Content-Security-Policy and the browser must log no script error or policy violation.
Screenshots go to SCREENSHOT_DIR (default .build/api-checks/screenshots)."""
import os
import pathlib
import secrets
import sys

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as visible
from selenium.webdriver.support.ui import WebDriverWait

import stack

SCREENSHOTS = pathlib.Path(os.environ.get("SCREENSHOT_DIR", ".build/api-checks/screenshots"))


class Console:
    def __init__(self):
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1100"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
        self.wait = WebDriverWait(self.driver, 15)
        self.shots = 0

    def element(self, element_id):
        return self.driver.find_element(By.ID, element_id)

    def visible(self, element_id):
        return self.wait.until(visible.visibility_of_element_located((By.ID, element_id)))

    def message(self, text, kind):
        """Waits for the message box to say `text` as an error (role alert) or info (role status)."""
        self.wait.until(lambda _: text in self.element("message").text and self.element("message").is_displayed())
        box = self.element("message")
        assert kind in box.get_attribute("class"), f"message {box.text!r} is not {kind}"
        assert box.get_attribute("role") == ("alert" if kind == "error" else "status")
        return box.text

    def fact(self, list_id, term):
        terms = self.driver.find_elements(By.CSS_SELECTOR, f"#{list_id} dt")
        values = self.driver.find_elements(By.CSS_SELECTOR, f"#{list_id} dd")
        return {t.text: v.text for t, v in zip(terms, values)}[term]

    def screenshot(self, name):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.shots += 1
        self.driver.save_screenshot(str(SCREENSHOTS / f"{self.shots:02d}-{name}.png"))

    def on_user_row(self, user_id, action):
        """Does `action` to the open button of the user's row, once the list has settled (a
        re-render replaces the rows, so an element found a moment earlier can be gone)."""
        def attempt(_):
            try:
                button = self.driver.find_element(By.CSS_SELECTOR, f'#users-body button[data-user-id="{user_id}"]')
                action(button)
                return True
            except StaleElementReferenceException:
                return False
        self.wait.until(attempt)

    def type_and_enter(self, element_id, text):
        field = self.visible(element_id)
        field.clear()
        field.send_keys(text)
        field.send_keys(Keys.ENTER)


def bearer_status(access_token):
    status, _, body = stack.request("GET", stack.GATEWAY_URL + "/api/v1/auth/me", headers={"Authorization": "Bearer " + access_token})
    return status, body


def check_policy_header():
    status, headers, body = stack.request("GET", stack.GATEWAY_URL + "/admin")
    assert status == 200 and headers["content-type"].startswith("text/html"), (status, headers)
    policy = headers.get("content-security-policy", "")
    for directive in ("default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"):
        assert directive in policy, f"Content-Security-Policy {policy!r} lacks {directive}"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert b"<script>" not in body and b"style=" not in body


def main():
    stack.require_stack()
    check_policy_header()
    tag = secrets.token_hex(4)
    email = f"browser-{tag}@example.com"
    subject = f"000777.browser.{tag}"
    first = stack.sign_in(subject, email, device_name="Ada's iPhone")
    token = first["access_token"]
    user_id = first["user"]["id"]
    headers = {"Authorization": "Bearer " + token}
    stack.json_call("PUT", stack.GATEWAY_URL + "/api/v1/favorites/item-1", {"nickname": "first"}, headers=headers)
    stack.json_call("PUT", stack.GATEWAY_URL + "/api/v1/read/item-2", headers=headers)

    console = Console()
    try:
        driver = console.driver
        driver.get(stack.GATEWAY_URL + "/admin")
        console.visible("login-view")
        assert driver.switch_to.active_element.get_attribute("id") == "password", "the password field has the focus"

        console.type_and_enter("password", "not the password " + tag)
        console.message("Wrong password", "error")
        console.screenshot("wrong-password")

        console.type_and_enter("password", stack.admin_password())
        console.visible("users-view")
        assert console.element("sign-out").is_displayed()

        console.type_and_enter("query", email)
        console.wait.until(lambda _: len(driver.find_elements(By.CSS_SELECTOR, "#users-body tr")) == 1)
        labels = []
        console.on_user_row(user_id, lambda button: labels.append(button.text))
        assert labels[-1] == email, labels
        console.screenshot("search")
        console.on_user_row(user_id, lambda button: button.send_keys(Keys.ENTER))  # keyboard: the row's button opens the user

        console.visible("user-view")
        console.wait.until(lambda _: console.fact("user-facts", "User id") == user_id)
        assert console.fact("user-facts", "Active") == "yes"
        assert console.fact("user-counts", "Favorites") == "1"
        assert console.fact("user-counts", "Read") == "1"
        assert console.fact("user-counts", "Unlikes") == "0"
        identity_cells = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#identities-body td")]
        assert identity_cells[:3] == ["apple", subject, email + " (verified)"] or identity_cells[:2] == ["apple", subject], identity_cells
        sessions = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#sessions-body td")]
        assert sessions[0] == "Ada's iPhone", sessions
        # The user's audit trail: the sign-in, with its device and provider.
        console.wait.until(lambda _: "sign in" in console.element("audit-body").text)
        audit = console.element("audit-body").text
        assert "device name: Ada's iPhone" in audit and "provider: apple" in audit, audit
        console.screenshot("user")

        console.element("deactivate").click()
        console.message("User deactivated", "info")
        console.wait.until(lambda _: console.fact("user-facts", "Active") == "no")
        assert not console.element("deactivate").is_enabled() and console.element("activate").is_enabled()
        status, body = bearer_status(token)
        assert status in (401, 403) and (b"user_inactive" in body or b"session_revoked" in body), (status, body)
        console.screenshot("deactivated")

        console.element("activate").click()
        console.message("User activated", "info")
        console.wait.until(lambda _: console.fact("user-facts", "Active") == "yes")

        # A new session after reactivation, which revoke-sessions ends.
        second = stack.sign_in(subject, email, device_name="Ada's iPad")
        assert bearer_status(second["access_token"])[0] == 200
        console.element("back").click()
        console.visible("users-view")
        console.on_user_row(user_id, lambda button: button.click())
        console.wait.until(lambda _: "Ada's iPad" in console.element("sessions-body").text)
        console.element("revoke-sessions").click()
        console.message("1 session revoked", "info")
        status, body = bearer_status(second["access_token"])
        assert status == 401 and b"session_revoked" in body, (status, body)
        console.wait.until(lambda _: console.element("sessions-empty").is_displayed())
        # The operator's actions are on the trail, newest first.
        console.wait.until(lambda _: "sessions revoked by admin" in console.element("audit-body").text)
        events = [row.find_elements(By.TAG_NAME, "td")[1].text for row in driver.find_elements(By.CSS_SELECTOR, "#audit-body tr")]
        assert events[0] == "sessions revoked by admin", events
        for expected in ("user deactivated", "user activated", "session revoked", "sign in"):
            assert expected in events, (expected, events)
        driver.execute_script("arguments[0].scrollIntoView()", console.element("audit-table"))
        console.screenshot("user-activity")

        # Delete asks first; Escape cancels, the confirmation deletes.
        console.element("delete").click()
        console.visible("delete-confirm")
        assert driver.switch_to.active_element.get_attribute("id") == "delete-no"
        driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        console.wait.until(lambda _: not console.element("delete-confirm").is_displayed())
        assert console.fact("user-facts", "User id") == user_id, "cancelling deleted nothing"
        console.element("delete").click()
        console.visible("delete-yes")
        console.screenshot("delete-confirmation")
        console.element("delete-yes").click()
        console.message(f"User {email} deleted", "info")
        console.visible("users-view")
        console.type_and_enter("query", email)
        console.wait.until(lambda _: console.element("users-empty").is_displayed())
        status, _, _ = stack.request("GET", stack.GATEWAY_URL + f"/admin/api/users/{user_id}", headers={"Cookie": "admin_session=" + stack.admin_cookie()})
        assert status == 404, status

        console.element("sign-out").click()
        console.message("Signed out", "info")
        console.visible("login-view")
        driver.refresh()
        console.visible("login-view")  # the cookie is gone: the console asks for the password again
        console.screenshot("signed-out")

        # The admin login limit (RATE_LIMIT_ADMIN_LOGIN_PER_MIN) answers 429; the console says so.
        for attempt in range(40):
            console.type_and_enter("password", f"wrong {attempt}")
            console.wait.until(lambda _: console.element("message").text)
            if "Too many attempts" in console.element("message").text:
                break
        console.message("Too many attempts. Try again in", "error")
        console.screenshot("rate-limited")

        problems = [
            entry for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE" and not expected_network_error(entry["message"])
        ]
        assert not problems, f"the browser logged errors: {problems}"
    except Exception:
        console.screenshot("failure")
        raise
    finally:
        console.driver.quit()
    print(f"admin console: every step passed in Chromium; screenshots in {SCREENSHOTS}")


def expected_network_error(message):
    """Chromium logs every 4xx answer of fetch as an error: the 401s of the signed-out probe and
    the wrong passwords, and the 429s, are what the test provokes. Anything else (a script
    error, a policy violation, another failed load) is a failure."""
    return ("/admin/login" in message or "/admin/api/users" in message) and (
        "status of 401" in message or "status of 429" in message)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"admin console: FAILED: {error}", file=sys.stderr)
        sys.exit(1)
