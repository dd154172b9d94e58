#!/usr/bin/env python3
"""Every commit subject from the one that added this check on is at most 72 characters (the
why goes in the body; `git log --oneline` is how the next person reads the history). Earlier
commits are history as it is. Exits 1 naming each longer subject.

    python3 scripts/lib/check_commit_subjects.py"""
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LIMIT = 72


def git(*arguments):
    return subprocess.run(["git", "-C", ROOT, *arguments], check=True, capture_output=True, text=True).stdout


def main():
    if not os.path.exists(os.path.join(ROOT, ".git")):
        print("commit subjects: not a git checkout; nothing to check")
        return 0
    added = git("log", "--diff-filter=A", "--format=%H", "--", "scripts/lib/check_commit_subjects.py").split()
    # Not committed yet: the commits to come are the ones checked.
    if not added:
        print("commit subjects: this check is not committed yet; nothing to check")
        return 0
    subjects = git("log", "--format=%h %s", f"{added[-1]}^..HEAD").splitlines()
    long = [line for line in subjects if len(line.split(" ", 1)[1]) > LIMIT]
    for line in long:
        print(f"commit subjects: {line.split(' ', 1)[0]} has a subject of {len(line.split(' ', 1)[1])} characters "
              f"(at most {LIMIT}): {line.split(' ', 1)[1]}", file=sys.stderr)
    if long:
        return 1
    print(f"commit subjects: {len(subjects)} since the check began, each at most {LIMIT} characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
