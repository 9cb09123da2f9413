#!/usr/bin/env python3
"""Fails when a ```swift block of README.md is not, line for line, in the README test target.

Each block's lines (leading whitespace ignored) must appear consecutively in
Tests/ContextualReadmeTests/ReadmeTests.swift, which compiles and asserts them; this keeps the README's
code from rotting.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
readme = (root / "README.md").read_text()
tests = [line.strip() for line in (root / "Tests/ContextualReadmeTests/ReadmeTests.swift").read_text().splitlines()]
tests = [line for line in tests if line]

def contains(haystack, needle):
    n = len(needle)
    return any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))

blocks = re.findall(r"```swift\n(.*?)```", readme, re.S)
missing = []
for number, block in enumerate(blocks, 1):
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    if not contains(tests, lines):
        missing.append((number, lines[0] if lines else ""))
if not blocks:
    print("check-readme: README.md has no ```swift block", file=sys.stderr)
    sys.exit(1)
for number, first in missing:
    print(f"check-readme: README swift block #{number} (starting `{first}`) is not verbatim in "
          "Tests/ContextualReadmeTests/ReadmeTests.swift; copy it there so that it compiles and is tested",
          file=sys.stderr)
print(f"check-readme: {len(blocks) - len(missing)} of {len(blocks)} README swift blocks are compiled by the tests")
sys.exit(1 if missing else 0)
