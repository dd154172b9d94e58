// The admin console (admin.html): plain JavaScript over the admin API (docs/api.md, "Admin")
// and its HttpOnly cookie session. Nothing is inserted as HTML: every value from the API is
// set as text, so a user's name or email can never run as code.
"use strict";

(() => {
  const pageSize = 20;
  const $ = (id) => document.getElementById(id);
  const views = ["login-view", "users-view", "user-view"];
  const state = { query: "", guest: "", cursors: [null], page: 0, nextCursor: null, user: null, auditCursor: null };

  /// An answer of the admin API that is not a success, with the catalogue code and message.
  class APIError extends Error {
    constructor(status, code, message, retryAfter) {
      super(message);
      this.status = status;
      this.code = code;
      this.retryAfter = retryAfter;
    }
  }

  async function api(method, path, body) {
    const init = { method, credentials: "same-origin", headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      throw new APIError(0, "network", "The gateway cannot be reached. Check the connection and try again.");
    }
    const text = await response.text();
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch (error) { data = null; }
    }
    if (!response.ok) {
      const detail = data && data.error ? data.error : { code: "http_" + response.status, message: "The request failed (HTTP " + response.status + ")." };
      throw new APIError(response.status, detail.code, detail.message, response.headers.get("Retry-After"));
    }
    return data;
  }

  // --- messages and views ---------------------------------------------------------------

  function showMessage(text, kind) {
    const box = $("message");
    box.className = "message " + kind;
    box.setAttribute("role", kind === "error" ? "alert" : "status");
    box.textContent = text;
    box.hidden = false;
  }

  function clearMessage() {
    $("message").hidden = true;
    $("message").textContent = "";
  }

  /// What the person reads for a failed call; a lost admin session goes back to sign-in.
  function showError(error) {
    if (!(error instanceof APIError)) {
      showMessage("Something went wrong in the console: " + error.message, "error");
      return;
    }
    if (error.code === "rate_limited") {
      const seconds = parseInt(error.retryAfter || "", 10);
      const wait = Number.isFinite(seconds) ? " Try again in " + seconds + " second" + (seconds === 1 ? "" : "s") + "." : " Try again later.";
      showMessage("Too many attempts." + wait, "error");
    } else if (error.status === 401 && !$("login-view").hidden) {
      showMessage(error.message, "error");
    } else if (error.status === 401) {
      showView("login-view");
      showMessage("Your admin session has ended. Sign in again.", "error");
    } else {
      showMessage(error.message, "error");
    }
  }

  function showView(id) {
    $("loading").hidden = true;
    for (const view of views) $(view).hidden = view !== id;
    $("sign-out").hidden = id === "login-view";
    const focusTarget = id === "login-view" ? $("password") : $(id).querySelector("h2");
    if (focusTarget.tagName === "H2") focusTarget.tabIndex = -1;
    focusTarget.focus();
  }

  // --- formatting --------------------------------------------------------------------------

  function time(value) {
    if (!value) return "never";
    return value.replace("T", " ").replace(/(\.\d+)?Z$/, " UTC");
  }

  const yesNo = (flag) => (flag ? "yes" : "no");

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function facts(list, pairs) {
    list.replaceChildren();
    for (const [term, value] of pairs) {
      const dt = document.createElement("dt");
      dt.textContent = term;
      const dd = document.createElement("dd");
      dd.textContent = value;
      list.append(dt, dd);
    }
  }

  // --- users -------------------------------------------------------------------------------

  async function loadUsers() {
    const params = new URLSearchParams({ limit: String(pageSize) });
    if (state.query) params.set("query", state.query);
    if (state.guest) params.set("guest", state.guest);
    const cursor = state.cursors[state.page];
    if (cursor) params.set("cursor", cursor);
    const page = await api("GET", "/admin/api/users?" + params.toString());
    state.nextCursor = page.next_cursor;
    renderUsers(page.users);
  }

  function renderUsers(users) {
    const body = $("users-body");
    body.replaceChildren();
    for (const user of users) {
      const row = document.createElement("tr");
      const first = cell(row, "");
      const open = document.createElement("button");
      open.type = "button";
      open.className = "link";
      open.textContent = user.email || "(no email) " + user.id;
      if (user.is_guest) {
        const label = document.createElement("span");
        label.className = "label";
        label.textContent = "guest";
        first.append(label, " ");
      }
      open.dataset.userId = user.id;
      open.setAttribute("aria-label", "Open user " + (user.email || user.id));
      open.addEventListener("click", () => run(() => openUser(user.id)));
      first.appendChild(open);
      cell(row, user.display_name || "");
      cell(row, user.providers.join(", "));
      cell(row, yesNo(user.is_active));
      cell(row, yesNo(user.is_admin));
      cell(row, time(user.created_at));
      body.appendChild(row);
    }
    $("users-empty").hidden = users.length > 0;
    $("previous-page").disabled = state.page === 0;
    $("next-page").disabled = !state.nextCursor;
  }

  async function showUsers() {
    await loadUsers();
    showView("users-view");
  }

  // --- one user ------------------------------------------------------------------------------

  async function openUser(id) {
    state.user = await api("GET", "/admin/api/users/" + encodeURIComponent(id));
    renderUser(state.user);
    $("audit-body").replaceChildren();
    state.auditCursor = null;
    await loadAudit(id);
    if ($("user-view").hidden) showView("user-view");
  }

  /// One page (20) of the user's audit trail, newest first, appended to the table.
  async function loadAudit(id) {
    let path = "/admin/api/audit?limit=20&user_id=" + encodeURIComponent(id);
    if (state.auditCursor) path += "&cursor=" + encodeURIComponent(state.auditCursor);
    const page = await api("GET", path);
    const body = $("audit-body");
    for (const event of page.events) {
      const row = document.createElement("tr");
      cell(row, time(event.occurred_at));
      cell(row, event.type.replace(/_/g, " "));
      cell(row, Object.keys(event.details).sort().map((key) => key.replace(/_/g, " ") + ": " + event.details[key]).join(", "));
      cell(row, event.ip || "");
      cell(row, event.user_agent || "");
      body.appendChild(row);
    }
    state.auditCursor = page.next_cursor;
    $("audit-empty").hidden = body.children.length > 0;
    $("audit-more").hidden = !page.next_cursor;
  }

  function renderUser(user) {
    $("user-title").textContent = user.display_name || user.email || user.id;
    facts($("user-facts"), [
      ["User id", user.id],
      ["Email", user.email ? user.email + (user.email_verified ? " (verified)" : " (not verified)") : "none"],
      ["Name", user.display_name || "none"],
      ["Active", yesNo(user.is_active)],
      ["Admin", yesNo(user.is_admin)],
      ["Providers", user.providers.join(", ") || "none"],
      ["Created", time(user.created_at)],
      ["Updated", time(user.updated_at)],
    ]);
    facts($("user-counts"), [
      ["Favorites", String(user.counts.favorites)],
      ["Read", String(user.counts.read)],
      ["Unlikes", String(user.counts.unlikes)],
    ]);
    const identities = $("identities-body");
    identities.replaceChildren();
    for (const identity of user.identities) {
      const row = document.createElement("tr");
      cell(row, identity.provider);
      cell(row, identity.subject);
      cell(row, identity.email ? identity.email + (identity.email_verified ? " (verified)" : "") : "none");
      cell(row, yesNo(identity.is_private_email));
      cell(row, identity.is_private_email ? (identity.email_forwarding ? "on" : "off") : "n/a");
      cell(row, time(identity.last_sign_in_at));
      identities.appendChild(row);
    }
    const sessions = $("sessions-body");
    sessions.replaceChildren();
    for (const session of user.sessions) {
      const row = document.createElement("tr");
      cell(row, session.device_name || "(unnamed device)");
      cell(row, time(session.created_at));
      cell(row, time(session.last_used_at));
      cell(row, time(session.expires_at));
      sessions.appendChild(row);
    }
    $("sessions-empty").hidden = user.sessions.length > 0;
    $("deactivate").disabled = !user.is_active;
    $("activate").disabled = user.is_active;
    $("revoke-sessions").disabled = user.sessions.length === 0;
    $("delete-confirm").hidden = true;
  }

  async function act(path, done) {
    const id = state.user.id;
    const result = await api("POST", "/admin/api/users/" + encodeURIComponent(id) + "/" + path);
    await openUser(id);
    showMessage(done(result), "info");
  }

  // --- wiring ------------------------------------------------------------------------------

  /// Runs an action, showing its failure as a message; buttons stay usable afterwards.
  async function run(action) {
    clearMessage();
    try {
      await action();
    } catch (error) {
      showError(error);
    }
  }

  function wire() {
    $("login-form").addEventListener("submit", (event) => {
      event.preventDefault();
      run(async () => {
        const password = $("password").value;
        await api("POST", "/admin/login", { password });
        $("password").value = "";
        state.cursors = [null];
        state.page = 0;
        await showUsers();
      });
    });

    $("sign-out").addEventListener("click", () => run(async () => {
      await api("POST", "/admin/logout");
      state.user = null;
      showView("login-view");
      showMessage("Signed out.", "info");
    }));

    $("search-form").addEventListener("submit", (event) => {
      event.preventDefault();
      run(async () => {
        state.query = $("query").value.trim();
        state.guest = $("guest-filter").value;
        state.cursors = [null];
        state.page = 0;
        await loadUsers();
      });
    });

    $("next-page").addEventListener("click", () => run(async () => {
      state.cursors[state.page + 1] = state.nextCursor;
      state.page += 1;
      await loadUsers();
    }));
    $("previous-page").addEventListener("click", () => run(async () => {
      state.page = Math.max(0, state.page - 1);
      await loadUsers();
    }));

    $("back").addEventListener("click", () => run(showUsers));

    $("deactivate").addEventListener("click", () => run(() =>
      act("deactivate", () => "User deactivated: sign-in is refused and every token is dead.")));
    $("activate").addEventListener("click", () => run(() => act("activate", () => "User activated.")));
    $("audit-more").addEventListener("click", () => run(() => loadAudit(state.user.id)));
    $("revoke-sessions").addEventListener("click", () => run(() =>
      act("revoke-sessions", (result) => result.revoked_sessions + " session" + (result.revoked_sessions === 1 ? "" : "s") + " revoked.")));

    $("delete").addEventListener("click", () => {
      $("delete-confirm").hidden = false;
      $("delete-no").focus();
    });
    $("delete-no").addEventListener("click", () => {
      $("delete-confirm").hidden = true;
      $("delete").focus();
    });
    $("delete-confirm").addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        $("delete-confirm").hidden = true;
        $("delete").focus();
      }
    });
    $("delete-yes").addEventListener("click", () => run(async () => {
      const user = state.user;
      await api("DELETE", "/admin/api/users/" + encodeURIComponent(user.id));
      state.user = null;
      await showUsers();
      showMessage("User " + (user.email || user.id) + " deleted.", "info");
    }));
  }

  /// Signed in already (the cookie is HttpOnly, so ask the API) or not.
  async function start() {
    wire();
    try {
      await showUsers();
    } catch (error) {
      if (error instanceof APIError && error.status === 401) {
        showView("login-view");
      } else {
        showView("login-view");
        showError(error);
      }
    }
  }

  document.addEventListener("DOMContentLoaded", start);
})();
