#!/usr/bin/env python3
"""Fails when a ```swift block of the documentation is not, line for line, in the test that compiles it.

- README.md                                        -> Tests/ContextualDocumentationTests/ReadmeTests.swift
- Sources/Contextual/Contextual.docc/Articles/X.md -> Tests/ContextualDocumentationTests/XTests.swift

Each block's lines (leading whitespace and blank lines ignored) must appear consecutively in its test file,
which compiles the block and asserts what the prose around it claims; this keeps the documentation's code
from rotting. Every article needs a test file, even one without a Swift block. The catalog's other pages
(the landing page and the symbol extension pages) may not hold ```swift blocks, which nothing would test.

Exit status 1, with one message per problem naming the file and the block, when anything is missing.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
catalog = root / "Sources/Contextual/Contextual.docc"
tests = root / "Tests/ContextualDocumentationTests"

FENCE = re.compile(r"^\s*```")
SWIFT_FENCE = re.compile(r"^\s*```swift\s*$")


def swift_blocks(text):
    """The ```swift blocks of a Markdown text: (line number of the fence, stripped non-blank lines)."""
    blocks = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        if SWIFT_FENCE.match(lines[index]):
            start = index + 1
            body = []
            index += 1
            while index < len(lines) and not FENCE.match(lines[index]):
                body.append(lines[index])
                index += 1
            blocks.append((start, [line.strip() for line in body if line.strip()]))
        elif FENCE.match(lines[index]):
            # Skip a block in another language, so that its fences are not taken for a Swift block's.
            index += 1
            while index < len(lines) and not FENCE.match(lines[index]):
                index += 1
        index += 1
    return blocks


def contains(haystack, needle):
    n = len(needle)
    return any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def relative(path):
    return path.relative_to(root).as_posix()


problems = []
total = 0
verbatim = 0
documents = 0

pairs = [(root / "README.md", tests / "ReadmeTests.swift")]
articles = sorted((catalog / "Articles").glob("*.md"))
if not articles:
    problems.append(f"{relative(catalog / 'Articles')} holds no article")
pairs += [(article, tests / f"{article.stem}Tests.swift") for article in articles]

for document, test_file in pairs:
    if not document.exists():
        problems.append(f"{relative(document)} does not exist")
        continue
    documents += 1
    blocks = swift_blocks(document.read_text())
    total += len(blocks)
    if not test_file.exists():
        problems.append(
            f"{relative(document)} has no test file: create {relative(test_file)}, with each of its "
            f"{len(blocks)} ```swift block(s) verbatim and assertions of what they claim"
        )
        continue
    test_lines = [line.strip() for line in test_file.read_text().splitlines()]
    test_lines = [line for line in test_lines if line]
    for number, (line, block) in enumerate(blocks, 1):
        if not block:
            problems.append(f"{relative(document)}:{line}: swift block #{number} is empty")
        elif not contains(test_lines, block):
            problems.append(
                f"{relative(document)}:{line}: swift block #{number} (starting `{block[0]}`) is not verbatim "
                f"in {relative(test_file)}; copy it there, line for line, so that it compiles and is tested"
            )
        else:
            verbatim += 1

for page in sorted(catalog.rglob("*.md")):
    if page.parent == catalog / "Articles":
        continue
    for line, block in swift_blocks(page.read_text()):
        problems.append(
            f"{relative(page)}:{line}: a ```swift block (starting `{block[0] if block else ''}`) outside "
            f"Articles/ is compiled by no test; move it to an article, or show it as plain text"
        )

for problem in problems:
    print(f"check-docs: {problem}", file=sys.stderr)
verdict = "FAILED" if problems else "ok"
print(
    f"check-docs: {verdict}: {verbatim} of {total} swift blocks in {documents} documents are verbatim in "
    f"their tests; {len(problems)} problem(s)"
)
sys.exit(1 if problems else 0)
