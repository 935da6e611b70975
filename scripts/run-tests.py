#!/usr/bin/env python3
"""Runs the test suite and says what ran: `make test`'s last lines.

    scripts/run-tests.py [swift test arguments...]     (make test: --skip-build --no-parallel)

Runs `swift test` with the given arguments (and `--xunit-output` of its own), then reads
the results swift-testing wrote and prints

    run-tests: N tests: P passed, F failed, S skipped

with one line for each failed test and each skipped one, the skip with its reason (the
need a test declares with `.requires(...)`: root, a device, a tool). A test counts once
however many argument cases it has. The exit status is swift test's when that failed,
else 1 when a test failed, no test ran or no results were written (a crash), or when
CI is set (CI=true, as CI services set it) and a test was skipped: `make test` installs
everything the suite needs (make deps), so in CI a skip is a need nobody installed, and
a run that passes without running everything must not look like one that ran it all.

SWIFT names the swift driver (default: swift). No shell is involved: the arguments go
to swift test as they are.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PREFIX = "run-tests:"


def ci_requested():
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def read_results(paths):
    """(name, outcome, detail) for each test case in the JUnit XML files: outcome is
    passed, failed or skipped; detail is the failure's message or the skip's reason."""
    results = []
    for path in paths:
        for case in ET.parse(path).getroot().iter("testcase"):
            classname = case.get("classname", "")
            name = f"{classname}.{case.get('name', '?')}" if classname else case.get("name", "?")
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            skipped = case.find("skipped")
            if failure is not None:
                results.append((name, "failed", failure.get("message") or (failure.text or "").strip()))
            elif skipped is not None:
                results.append((name, "skipped", (skipped.text or skipped.get("message") or "").strip()))
            else:
                results.append((name, "passed", ""))
    return results


def main(arguments):
    swift = os.environ.get("SWIFT", "swift")
    folder = tempfile.mkdtemp(prefix="scratchcard-test-results-")
    try:
        # swift-testing's results go beside this path (xunit-swift-testing.xml). The suite
        # is all swift-testing: XCTest's would be at the path itself, but swift test
        # writes them only with --parallel; whatever is there is read.
        xunit = os.path.join(folder, "xunit.xml")
        command = [swift, "test", *arguments, "--xunit-output", xunit]
        print(f"{PREFIX} {' '.join(command)}", flush=True)
        child = subprocess.Popen(command)
        while True:
            try:
                status = child.wait()
                break
            except KeyboardInterrupt:
                # The terminal's ^C reached swift test too (one process group): let it
                # stop its tests and report, then stop as it did.
                continue
        written = [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".xml")]
        try:
            results = read_results(written)
        except ET.ParseError as error:
            print(f"{PREFIX} the results could not be read ({error}): the test run did not finish", file=sys.stderr)
            return status or 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    passed = [r for r in results if r[1] == "passed"]
    failed = [r for r in results if r[1] == "failed"]
    skipped = [r for r in results if r[1] == "skipped"]
    print()
    print(f"{PREFIX} {len(results)} tests: {len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped")
    for name, _, detail in failed:
        print(f"{PREFIX} failed: {name}: {detail}")
    for name, _, reason in skipped:
        print(f"{PREFIX} skipped: {name}: {reason or '(no reason given)'}")

    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = str(-status)
        print(f"{PREFIX} swift test was killed by signal {name}", file=sys.stderr)
        return 128 - status
    if not written:
        print(f"{PREFIX} swift test wrote no results (exit status {status}): it did not run its tests to the end",
              file=sys.stderr)
        return status or 1
    if status != 0:
        return status
    if failed:
        return 1
    if not results:
        print(f"{PREFIX} no test ran: a filter that matches nothing?", file=sys.stderr)
        return 1
    if skipped and ci_requested():
        print(f"{PREFIX} CI={os.environ.get('CI')}: {len(skipped)} skipped tests fail the run: in CI every test runs "
              f"(make deps installs what they need; run as root)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
