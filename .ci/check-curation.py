#!/usr/bin/env python3
"""Fails when a public symbol that the catalog must curate is listed in no Topics section.

Usage: check-curation.py SYMBOL_GRAPH_DIR DOCS_OUTPUT_DIR

Must be curated, each as a ``symbol link`` in a `## Topics` section of Sources/Contextual/Contextual.docc:
- every top-level public symbol of the module (types, protocols, property wrappers, functions), and
- every member of `Context` and of `ContextValues` (each overload on its own).

The symbols come from the symbol graph that `swift symbolgraph-extract` wrote (SYMBOL_GRAPH_DIR). Whether
a symbol is curated comes from what `docc convert` rendered (DOCS_OUTPUT_DIR/data): DocC lists every
symbol that no Topics section names in a group it generates itself (`"generated": true`), so a symbol is
curated when a topic section that DocC did not generate lists it. That resolves each overload's
disambiguated link exactly as DocC does. Exit status 1 names each symbol that is not curated.
"""
import json
import pathlib
import sys

if len(sys.argv) != 3:
    print(__doc__.strip().splitlines()[2], file=sys.stderr)
    sys.exit(2)

graph_dir = pathlib.Path(sys.argv[1])
data_dir = pathlib.Path(sys.argv[2]) / "data"
MEMBERS_OF = ("Context", "ContextValues")

# The symbols to curate, by precise identifier (USR).
required = {}
graphs = sorted(graph_dir.glob("Contextual*.symbols.json"))
if not graphs:
    print(f"check-curation: no Contextual symbol graph in {graph_dir}", file=sys.stderr)
    sys.exit(1)
for graph in graphs:
    for symbol in json.loads(graph.read_text())["symbols"]:
        path = symbol["pathComponents"]
        usr = symbol["identifier"]["precise"]
        if "::SYNTHESIZED::" in usr:
            continue  # a protocol's default implementation, which DocC groups under the conformance
        if len(path) == 1 or (len(path) == 2 and path[0] in MEMBERS_OF):
            required[usr] = (symbol["kind"]["displayName"], "/".join(path), symbol["names"]["title"])

# What DocC rendered: each symbol page's URL, and the pages that Topics sections list.
url_of = {}
curated = set()
if not data_dir.is_dir():
    print(f"check-curation: no rendered documentation in {data_dir}", file=sys.stderr)
    sys.exit(1)
for page in data_dir.rglob("*.json"):
    node = json.loads(page.read_text())
    usr = node.get("metadata", {}).get("externalID")
    if usr:
        url_of[usr] = node["identifier"]["url"]
    for section in node.get("topicSections", []):
        if not section.get("generated", False):
            curated.update(section.get("identifiers", []))

missing = []
for usr, (kind, path, title) in sorted(required.items(), key=lambda item: item[1][1]):
    url = url_of.get(usr)
    if url is None:
        missing.append(f"{kind} {path} ({title}): DocC rendered no page for it")
    elif url not in curated:
        link = url.split("/documentation/Contextual/", 1)[-1]
        missing.append(f"{kind} {path}: add ``{link}`` to a Topics group")

for problem in missing:
    print(f"check-curation: not curated: {problem}", file=sys.stderr)
top_level = sum(1 for _, path, _ in required.values() if "/" not in path)
print(
    f"check-curation: {'FAILED' if missing else 'ok'}: {len(required) - len(missing)} of {len(required)} "
    f"symbols curated ({top_level} top-level, {len(required) - top_level} members of "
    f"{' and '.join(MEMBERS_OF)})"
)
sys.exit(1 if missing else 0)
