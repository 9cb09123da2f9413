#!/usr/bin/env python3
"""Fails when a public symbol that a catalog must curate is listed in no Topics section.

Usage: check-curation.py SYMBOL_GRAPH_DIR DOCS_OUTPUT_DIR [--module NAME] [--members-of TYPE ... | --all]

Must be curated, each as a ``symbol link`` in a `## Topics` section of the module's catalog
(Sources/NAME/NAME.docc; NAME is Contextual unless given):
- every top-level public symbol of the module (types, protocols, property wrappers, functions), and
- every member of each type given with `--members-of` (each overload on its own; by default `Context`
  and `ContextValues`), or, with `--all`, every public symbol, members and the module's extensions of
  other modules' types included.

The symbols come from the symbol graphs that `swift symbolgraph-extract` wrote (SYMBOL_GRAPH_DIR, the
module's own and its extensions', NAME.symbols.json and NAME@OTHER.symbols.json). Whether a symbol is
curated comes from what `docc convert` rendered (DOCS_OUTPUT_DIR/data): DocC lists every symbol that no
Topics section names in a group it generates itself (`"generated": true`), so a symbol is curated when a
topic section that DocC did not generate lists it. That resolves each overload's disambiguated link
exactly as DocC does. Exit status 1 names each symbol that is not curated.
"""
import json
import pathlib
import sys


def usage():
    print(__doc__.strip().splitlines()[2], file=sys.stderr)
    sys.exit(2)


arguments = sys.argv[1:]
if len(arguments) < 2:
    usage()
graph_dir = pathlib.Path(arguments[0])
data_dir = pathlib.Path(arguments[1]) / "data"
module = "Contextual"
MEMBERS_OF = ("Context", "ContextValues")
every_symbol = False
options = arguments[2:]
while options:
    option = options.pop(0)
    if option == "--module" and options:
        module = options.pop(0)
    elif option == "--all":
        every_symbol = True
    elif option == "--members-of":
        members = []
        while options and not options[0].startswith("--"):
            members.append(options.pop(0))
        MEMBERS_OF = tuple(members)
    else:
        usage()

# The symbols to curate, by precise identifier (USR).
required = {}
graphs = sorted(graph_dir.glob(f"{module}.symbols.json")) + sorted(graph_dir.glob(f"{module}@*.symbols.json"))
if not graphs:
    print(f"check-curation: no {module} symbol graph in {graph_dir}", file=sys.stderr)
    sys.exit(1)
for graph in graphs:
    for symbol in json.loads(graph.read_text())["symbols"]:
        path = symbol["pathComponents"]
        usr = symbol["identifier"]["precise"]
        if "::SYNTHESIZED::" in usr:
            continue  # a protocol's default implementation, which DocC groups under the conformance
        if every_symbol or len(path) == 1 or (len(path) == 2 and path[0] in MEMBERS_OF):
            required[usr] = (symbol["kind"]["displayName"], "/".join(path), symbol["names"]["title"])

# What DocC rendered: each symbol page's URL, and the pages that Topics sections list.
url_of = {}
synthesized_url_of = {}
curated = set()
if not data_dir.is_dir():
    print(f"check-curation: no rendered documentation in {data_dir}", file=sys.stderr)
    sys.exit(1)
for page in data_dir.rglob("*.json"):
    node = json.loads(page.read_text())
    usr = node.get("metadata", {}).get("externalID")
    if usr:
        url_of[usr] = node["identifier"]["url"]
        # A static member of a protocol extension constrained to one type (`extension Trait where Self ==
        # ContextTrait`) is rendered as that type's, under the member's USR and `::SYNTHESIZED::`.
        member, _, _ = usr.partition("::SYNTHESIZED::")
        synthesized_url_of.setdefault(member, node["identifier"]["url"])
    for section in node.get("topicSections", []):
        if not section.get("generated", False):
            curated.update(section.get("identifiers", []))

missing = []
for usr, (kind, path, title) in sorted(required.items(), key=lambda item: item[1][1]):
    url = url_of.get(usr) or synthesized_url_of.get(usr)
    if url is None:
        missing.append(f"{kind} {path} ({title}): DocC rendered no page for it")
    elif url not in curated:
        link = url.split(f"/documentation/{module}/", 1)[-1]
        missing.append(f"{kind} {path}: add ``{link}`` to a Topics group")

for problem in missing:
    print(f"check-curation: not curated: {problem}", file=sys.stderr)
top_level = sum(1 for _, path, _ in required.values() if "/" not in path)
members = "members and extensions" if every_symbol else f"members of {' and '.join(MEMBERS_OF) or 'no type'}"
print(
    f"check-curation: {module}: {'FAILED' if missing else 'ok'}: {len(required) - len(missing)} of "
    f"{len(required)} symbols curated ({top_level} top-level, {len(required) - top_level} {members})"
)
sys.exit(1 if missing else 0)
