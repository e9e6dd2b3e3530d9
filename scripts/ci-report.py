#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a build tree's time went: compile and link time per area and per target (ninja's
.ninja_log), and test time per label and per test (CTest's Testing/Temporary/LastTest.log).

    scripts/ci-report.py [--top N] [--markdown] BUILD_DIR...

.ci/run prints it after each stage that builds; docs/testing.md ("CI budget") keeps a
--markdown report of a fresh-clone run. Every figure is CPU time of one step (a compile, a link, a
test), so a sum over steps is CPU seconds, not wall time: with two cores the wall time of a build
is about half its CPU seconds. Standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict


def read_ninja_log(build):
    """{output: seconds} of the last run of every step in BUILD/.ninja_log (v5 or v6)."""
    path = os.path.join(build, ".ninja_log")
    steps = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 5:
                    continue
                try:
                    start, end = int(parts[0]), int(parts[1])
                except ValueError:
                    continue
                # A later line for the same output is a later build of it: it wins.
                steps[parts[3]] = (end - start) / 1000.0
    except OSError:
        return None
    return steps


def area_of(output):
    """The part of the tree a build step belongs to, from its output's path."""
    o = output
    m = re.match(r"src/CMakeFiles/sc_(\w+)\.dir/", o)
    if m:
        return "src/" + m.group(1)
    m = re.match(r"src/CMakeFiles/(doca_\w+)\.dir/", o)
    if m:
        return "src/capi (" + m.group(1) + ")"
    m = re.match(r"tests/CMakeFiles/[^/]+\.dir/(\w+)/", o)
    if m:
        return "tests/" + m.group(1)
    m = re.match(r"tests/(\w+)/", o)
    if m:
        return "tests/" + m.group(1)
    m = re.match(r"tests/(unit|api|it|cli|stress)_", o)
    if m:
        return "tests/" + {"it": "integration"}.get(m.group(1), m.group(1))
    if o.startswith("tests/"):
        return "tests"
    for prefix in ("bench/peers", "bench", "tools", "samples", "programs", "src"):
        if o.startswith(prefix + "/"):
            return prefix
    if o.startswith("libexec/"):
        return "bench"
    if o.startswith("bin/"):
        return "tools"
    if re.match(r"lib\w*\.so", os.path.basename(o)):
        return "src"
    return "other"


def is_compile(output):
    return output.endswith(".o")


def pretty_target(output):
    """A compile's output as its source's path; anything else as it is."""
    m = re.match(r".*/CMakeFiles/[^/]+\.dir/(.*)\.o$", output)
    return m.group(1) if m else output


def read_tests(build):
    """[(name, seconds, status)] of BUILD/Testing/Temporary/LastTest.log, or None."""
    path = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    tests = []
    name = None
    seconds = None
    reason = False  # "Test Pass Reason:": the next line says whether it passed or was skipped
    for line in text.splitlines():
        m = re.match(r"\d+/\d+ Test: (.*)$", line)
        if m:
            name, seconds, reason = m.group(1), None, False
            continue
        if name is None:
            continue
        m = re.match(r"Test time =\s*([0-9.]+) sec", line)
        if m:
            seconds = float(m.group(1))
            continue
        if seconds is None:
            continue
        if reason:
            status = "skipped" if line.startswith("Skip") else "passed"
        elif line.startswith("Test Pass Reason"):
            reason = True
            continue
        elif line.startswith("Test Passed"):
            status = "passed"
        elif line.startswith("Test Failed") or line.startswith("Test "):
            status = "failed"
        else:
            continue
        tests.append((name, seconds, status))
        name = None
    return tests


def read_labels(build):
    """{test name: [labels]} from `ctest --show-only=json-v1` in BUILD, or {}. That run rewrites
    LastTest.log, which is put back as it was."""
    log = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    try:
        with open(log, "rb") as f:
            saved = f.read()
    except OSError:
        saved = None
    try:
        out = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True,
                             text=True, timeout=120, check=False).stdout
        doc = json.loads(out)
    except (OSError, ValueError, subprocess.SubprocessError):
        doc = {}
    finally:
        if saved is not None:
            with open(log, "wb") as f:
                f.write(saved)
    labels = {}
    for t in doc.get("tests", []):
        for p in t.get("properties", []):
            if p.get("name") == "LABELS":
                labels[t.get("name")] = list(p.get("value", []))
    return labels


class table:
    """Rows printed as aligned text or as a Markdown table."""

    def __init__(self, markdown, header):
        self.markdown = markdown
        self.header = header
        self.rows = []

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def render(self):
        if self.markdown:
            lines = ["| " + " | ".join(self.header) + " |",
                     "|" + "|".join("---" for _ in self.header) + "|"]
            lines += ["| " + " | ".join(r) + " |" for r in self.rows]
            return "\n".join(lines)
        widths = [max(len(r[i]) for r in [self.header] + self.rows)
                  for i in range(len(self.header))]
        fmt = lambda r: "  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                         for i, (c, w) in enumerate(zip(r, widths)))
        return "\n".join([fmt(self.header)] + [fmt(r) for r in self.rows])


def relative_steps(build, steps):
    """The steps with outputs inside BUILD named relative to it (CMake names some absolutely)."""
    root = os.path.abspath(build) + os.sep
    return {(o[len(root):] if o.startswith(root) else o): s for o, s in steps.items()}


def report_build(build, steps, top, markdown):
    compile_s = sum(s for o, s in steps.items() if is_compile(o))
    link_s = sum(s for o, s in steps.items() if not is_compile(o))
    n_compile = sum(1 for o in steps if is_compile(o))
    print(f"{build}: {len(steps)} build steps, {n_compile} compiles {compile_s:.0f} CPU-s, "
          f"links and other steps {link_s:.0f} CPU-s")
    per_area = defaultdict(lambda: [0, 0.0, 0, 0.0])
    for o, s in steps.items():
        a = per_area[area_of(o)]
        if is_compile(o):
            a[0] += 1
            a[1] += s
        else:
            a[2] += 1
            a[3] += s
    t = table(markdown, ["area", "compiles", "compile CPU-s", "links/other", "link CPU-s"])
    for area, (nc, cs, nl, ls) in sorted(per_area.items(), key=lambda kv: -(kv[1][1] + kv[1][3])):
        t.add(area, nc, f"{cs:.1f}", nl, f"{ls:.1f}")
    print(t.render())
    print(f"\nslowest {top} steps of {build}:")
    t = table(markdown, ["step", "seconds"])
    for o, s in sorted(steps.items(), key=lambda kv: -kv[1])[:top]:
        t.add(pretty_target(o), f"{s:.1f}")
    print(t.render())


def report_tests(build, tests, labels, top, markdown):
    total = sum(s for _, s, _ in tests)
    failed = sum(1 for _, _, st in tests if st == "failed")
    skipped = sum(1 for _, _, st in tests if st == "skipped")
    print(f"\n{build}: {len(tests)} tests in the last ctest run, {total:.0f} s summed"
          + (f", {failed} failed" if failed else "") + (f", {skipped} skipped" if skipped else ""))
    per_label = defaultdict(lambda: [0, 0.0, ("", 0.0)])
    for name, s, _ in tests:
        for label in labels.get(name, ["(no label)"]):
            e = per_label[label]
            e[0] += 1
            e[1] += s
            if s > e[2][1]:
                e[2] = (name, s)
    t = table(markdown, ["label", "tests", "summed s", "slowest"])
    for label, (n, s, (slow, ss)) in sorted(per_label.items(), key=lambda kv: -kv[1][1]):
        t.add(label, n, f"{s:.1f}", f"{slow} ({ss:.1f} s)")
    print(t.render())
    print(f"\nslowest {top} tests of {build}:")
    t = table(markdown, ["test", "labels", "seconds"])
    for name, s, _ in sorted(tests, key=lambda x: -x[1])[:top]:
        t.add(name, ",".join(labels.get(name, [])), f"{s:.2f}")
    print(t.render())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("builds", nargs="+", metavar="BUILD_DIR")
    ap.add_argument("--top", type=int, default=10, help="how many steps and tests to list (10)")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables (docs/testing.md)")
    args = ap.parse_args()
    status = 0
    for i, build in enumerate(args.builds):
        if i:
            print()
        steps = read_ninja_log(build)
        if steps:
            steps = relative_steps(build, steps)
        tests = read_tests(build)
        if steps is None and tests is None:
            print(f"{build}: no .ninja_log and no CTest log", file=sys.stderr)
            status = 1
            continue
        if steps:
            report_build(build, steps, args.top, args.markdown)
        if tests:
            report_tests(build, tests, read_labels(build), args.top, args.markdown)
    return status


if __name__ == "__main__":
    sys.exit(main())
