#!/usr/bin/env python3
"""Follows identity's user lifecycle feed (DESIGN.md section 9.4) over the internal RPC, with
the standard library only: reads `identity.events.read` from a cursor, prints each event as a
JSON line, and keeps the cursor in a file so that a restart goes on where it stopped (an event
is printed at least once: the cursor is saved after the events it covers).

    SERVICE_TOKEN=... python3 user_events.py HOST PORT [--cursor-file FILE] [--follow]

Without --follow it stops when it has read to the end of the feed. Events come in commit order
(`user.created`, `user.deleted`, `sessions.revoked`, ...; docs/protocol.md).
"""
import argparse
import json
import os
import sys
import time

from latchkey_rpc import Connection


def read_cursor(path):
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as file:
            return file.read().strip() or None
    return None


def save_cursor(path, cursor):
    if path and cursor is not None:
        temporary = path + ".tmp"
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(cursor)
        os.replace(temporary, path)


def follow(connection, cursor, cursor_file, keep_following, limit=100):
    """Prints every event after `cursor`; returns the cursor at the end."""
    while True:
        params = {"limit": limit}
        if cursor is not None:
            params["since"] = cursor
        page = connection.call("identity.events.read", params)
        for event in page["events"]:
            print(json.dumps(event, sort_keys=True), flush=True)
        cursor = page["next_cursor"]
        save_cursor(cursor_file, cursor)
        if not page["has_more"]:
            if not keep_following:
                return cursor
            time.sleep(1.0)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--cursor-file")
    parser.add_argument("--follow", action="store_true")
    arguments = parser.parse_args(argv[1:])
    connection = Connection(arguments.host, arguments.port)
    try:
        connection.hello("python-user-events", os.environ["SERVICE_TOKEN"])
        follow(connection, read_cursor(arguments.cursor_file), arguments.cursor_file, arguments.follow)
        return 0
    finally:
        connection.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
