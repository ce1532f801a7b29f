#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the links of the documentation a user's clone holds.

Every relative link in README.md, docs/**/*.md and every other README.md of the repository
must name a file or directory that exists, and its #anchor (for a Markdown target) must be a
heading of that file. No link may leave the repository: no ../shared, nothing that climbs
above the repository root, no absolute file path. The text ../shared/ may not appear at all
(the team's own documents are not part of a clone). Links with a scheme (https:, mailto:)
are not fetched. Fenced code blocks and inline code are skipped.

Usage: check_links.py [REPO_ROOT]. Prints "docs/links: PASS" or one line per problem.
"""
import os
import re
import sys

SKIP_DIRS = {".git", "build", "build-asan", "node_modules", "__pycache__"}
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def doc_files(root):
    files = []
    for top in ["README.md"]:
        if os.path.isfile(os.path.join(root, top)):
            files.append(top)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build"))
        rel = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            path = os.path.normpath(os.path.join(rel, name))
            if path == "README.md":
                continue
            if name == "README.md" or (name.endswith(".md") and
                                       (path.startswith("docs" + os.sep))):
                files.append(path)
    return files


def strip_code(text):
    """The text with fenced code blocks blanked (line numbers kept) and inline code removed."""
    out = []
    fence = None
    for line in text.split("\n"):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(re.sub(r"`+[^`]*`+", "", line))
    return out


def slug(heading, seen):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "").replace("*", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE).replace(" ", "-")
    n = seen.get(text, 0)
    seen[text] = n + 1
    return text if n == 0 else f"{text}-{n}"


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        fence = None
        for line in lines:
            m = re.match(r"^\s*(```+|~~~+)", line)
            if fence:
                if m and m.group(1)[0] == fence[0]:
                    fence = None
                continue
            if m:
                fence = m.group(1)
                continue
            h = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if h:
                found.add(slug(h.group(1), seen))
            for a in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                found.add(a)
        _anchors[path] = found
    return _anchors[path]


def check(root):
    root = os.path.realpath(root)
    problems = []
    files = doc_files(root)
    for rel in files:
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        for number, line in enumerate(raw.split("\n"), 1):
            if "../shared/" in line or "shared/docs/" in line:
                problems.append(f"{rel}:{number}: names ../shared/docs, which is outside the repository")
        for number, line in enumerate(strip_code(raw), 1):
            targets = [m.group(1) for m in LINK.finditer(line)]
            m = REF_DEF.match(line)
            if m:
                targets.append(m.group(1))
            for target in targets:
                if SCHEME.match(target):
                    continue
                where = f"{rel}:{number}: link {target}"
                file_part, _, anchor = target.partition("#")
                if file_part.startswith("/"):
                    problems.append(f"{where}: an absolute path leaves the repository")
                    continue
                resolved = (os.path.realpath(os.path.join(os.path.dirname(path), file_part))
                            if file_part else path)
                if os.path.commonpath([root, resolved]) != root:
                    problems.append(f"{where}: leaves the repository")
                    continue
                if not os.path.exists(resolved):
                    problems.append(f"{where}: no such file")
                    continue
                if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
                    if anchor not in anchors(resolved):
                        problems.append(f"{where}: no heading #{anchor} in "
                                        f"{os.path.relpath(resolved, root)}")
    return files, problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    files, problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"docs/links: FAIL ({len(problems)} problems in {len(files)} files)")
        return 1
    print(f"docs/links: PASS ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
