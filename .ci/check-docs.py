#!/usr/bin/env python3
"""Fails when a ```swift block of the documentation is not, line for line, in the test that compiles it.

- README.md                                        -> Tests/ContextualDocumentationTests/ReadmeTests.swift
- Sources/Contextual/Contextual.docc/Articles/X.md -> Tests/ContextualDocumentationTests/XTests.swift

Each block's lines (leading whitespace and blank lines ignored) must appear consecutively in its test file,
which compiles the block and asserts what the prose around it claims; this keeps the documentation's code
from rotting. Every article needs a test file, even one without a Swift block. The catalog's other pages
(the landing page and the symbol extension pages), and the pages of Sources/ContextualTesting/ContextualTesting.docc,
may not hold ```swift blocks, which nothing would test.

An article whose code needs packages the library does not depend on (Hummingbird, swift-log, …) declares
instead, in an HTML comment, the example source files its blocks come from; each block must then be
verbatim in one of them, and those examples are built and tested by .ci/run:

    <!-- code: Examples/HummingbirdServer/Sources/TodoServer/App.swift
               Examples/HummingbirdServer/Sources/TodoServer/RequestScopeMiddleware.swift -->

Such an article needs no test file in Tests/ContextualDocumentationTests.

Exit status 1, with one message per problem naming the file and the block, when anything is missing.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
catalog = root / "Sources/Contextual/Contextual.docc"
# The ContextualTesting library's catalog: a landing page and symbol pages, with no articles of its own.
testing_catalog = root / "Sources/ContextualTesting/ContextualTesting.docc"
tests = root / "Tests/ContextualDocumentationTests"

FENCE = re.compile(r"^\s*```")
SWIFT_FENCE = re.compile(r"^\s*```swift\s*$")
CODE_COMMENT = re.compile(r"<!--\s*code:(.*?)-->", re.DOTALL)


def declared_code_files(text):
    """The example source files an article's `<!-- code: PATH … -->` comments name, in order."""
    return [pathlib.Path(path) for match in CODE_COMMENT.finditer(text) for path in match.group(1).split()]


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

def strip_lines(text):
    return [line for line in (line.strip() for line in text.splitlines()) if line]


def check_against_examples(document, blocks, declared):
    """Checks each block of `document` against the example files it declares; returns how many matched."""
    global verbatim
    missing = [path for path in declared if not (root / path).is_file()]
    for path in missing:
        problems.append(
            f"{relative(document)}: its `<!-- code: … -->` comment names {path.as_posix()}, which does not exist; "
            f"give the path of an example source file, relative to the repository's root"
        )
    sources = [(path, strip_lines((root / path).read_text())) for path in declared if path not in missing]
    names = ", ".join(path.as_posix() for path in declared)
    for number, (line, block) in enumerate(blocks, 1):
        if not block:
            problems.append(f"{relative(document)}:{line}: swift block #{number} is empty")
        elif not any(contains(lines, block) for _, lines in sources):
            problems.append(
                f"{relative(document)}:{line}: swift block #{number} (starting `{block[0]}`) is not verbatim in "
                f"any of the example files its `<!-- code: … -->` comment names ({names}); copy it from the "
                f"example, line for line, or name the file it comes from, so that the example's build compiles it"
            )
        else:
            verbatim += 1


for document, test_file in pairs:
    if not document.exists():
        problems.append(f"{relative(document)} does not exist")
        continue
    documents += 1
    text = document.read_text()
    blocks = swift_blocks(text)
    total += len(blocks)
    declared = declared_code_files(text)
    if declared:
        check_against_examples(document, blocks, declared)
        continue
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

for page in sorted(catalog.rglob("*.md")) + sorted(testing_catalog.rglob("*.md")):
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
    f"their tests or examples; {len(problems)} problem(s)"
)
sys.exit(1 if problems else 0)
