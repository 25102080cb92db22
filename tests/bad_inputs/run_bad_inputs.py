#!/usr/bin/python3
"""Runs every case of cases.tsv through the real wnn binary and checks the error contract:
exit code 2, exactly one line on stderr of the form `wnn: error: <where>: <what>` naming the
file and containing the expected substring, and no abort, stack trace or internal error.

    run_bad_inputs.py WNN_BINARY [TESTS_BAD_INPUTS_DIR]
"""

import pathlib
import shlex
import subprocess
import sys


def main():
    wnn = str(pathlib.Path(sys.argv[1]).resolve())
    here = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else __file__).resolve()
    here = here if here.is_dir() else here.parent
    failures, count = [], 0
    for line in (here / "cases.tsv").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        command, rel, expected = (line.split("\t") + [""])[:3]
        count += 1
        args = shlex.split(command)
        cmd = [wnn, args[0], rel] + args[1:]
        try:
            r = subprocess.run(cmd, cwd=here, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            failures.append(f"{rel}: timed out ({' '.join(cmd)})")
            continue
        err = r.stderr.decode(errors="replace")
        lines = err.splitlines()
        problems = []
        if r.returncode != 2:
            problems.append(f"exit code {r.returncode}, expected 2")
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr, expected 1")
        first = lines[0] if lines else ""
        if not first.startswith("wnn: error: "):
            problems.append("stderr does not start with 'wnn: error: '")
        # The file at fault: the case's file or a sibling of the same stem (its weights file
        # or manifest).
        if pathlib.Path(rel).stem not in first:
            problems.append("the message does not name the file")
        if expected and expected not in first:
            problems.append(f"the message lacks {expected!r}")
        if problems:
            failures.append(f"{rel} ({command}): {'; '.join(problems)}\n    stderr: {err[:400]!r}")
    for f in failures:
        print("FAIL", f)
    print(f"{count - len(failures)}/{count} bad inputs rejected as expected")
    return 1 if failures or count < 60 else 0


if __name__ == "__main__":
    sys.exit(main())
