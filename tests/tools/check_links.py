#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the links of the documentation a user's clone holds, and the files the sources name.

Every relative link in README.md, docs/**/*.md and every other README.md of the repository
must name a file or directory that exists, and its #anchor (for a Markdown target) must be a
heading of that file. No link may leave the repository: no ../shared, nothing that climbs
above the repository root, no absolute file path. Links with a scheme (https:, mailto:)
are not fetched. Fenced code blocks and inline code are skipped.

The sources are scanned too: *.h, *.cpp, *.py, *.sh, *.md, *.json under scenarios/ and
tests/, CMakeLists.txt, *.cmake(.in), and scripts without an extension (text files that
start with #!). In every line of them:

- the team's own documents, which a clone does not have, may not be named (TEAM_DOC: the
  .md files SPEC, SCENARIOS, ARCHITECTURE, PERFORMANCE, STYLE and REVIEW*, and anything
  under ../shared); the user's documents are docs/*.md, and rules are cited by their IDs
  from docs/spec-rules.tsv;
- a path that starts with a top-level directory of the repository (docs/, tests/, scripts/,
  model/, app/, ...) and names a file (its last part has an extension, or it is under
  scripts/) or a directory (it ends with /) must exist, from the repository root or from the
  directory of the file that names it (tests/CMakeLists.txt lists tlm/test_rnic.cpp); a path
  with * or ? must match something. Not checked: a path inside a longer path or URL (after a
  /, . or -), placeholders (FILE.json, test_NAME.cpp, X, ..., <...>, {...}, $VAR), and names
  without an extension that are not paths (the ctest names docs/links, docs/stats).

ALLOW below lists the few exceptions, each with its reason; an entry that no longer matches
anything is a problem too, so the list cannot outlive its reasons. This file itself is not
scanned (it names what it looks for).

Usage: check_links.py [REPO_ROOT]. Prints "docs/links: PASS" or one line per problem.
"""
import glob
import os
import re
import sys

SKIP_DIRS = {".git", "build", "build-asan", "node_modules", "__pycache__"}
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")

# The team's documents: not part of a clone, so nothing in the repository may cite them.
TEAM_DOC = re.compile(r"\b(?:SPEC|SCENARIOS|ARCHITECTURE|PERFORMANCE|STYLE|REVIEW[\w-]*)\.md\b"
                      r"|\.\./shared\b|\bshared/docs/")
# A path from the repository root: a top-level directory (filled in by check_sources), then
# path characters. Not when it continues a longer path, a URL or a name (a /, ., - or word
# character before it).
PATH_CHARS = r"[\w.*?/+-]"
# Placeholders in usage text and examples: a path with a component made of (or holding, as a
# _ or - separated word) one of these is not a real file name: tests/tlm/test_NAME.cpp.
PLACEHOLDER = re.compile(r"(?:^|[_-])(?:FILE\d?|NAME|DIR|OUT|X|N|RULE|STEM|SEED|KIND|xxx|x|"
                         r"foo|bar)(?:[_.-]|$)")
SOURCE_SUFFIXES = (".h", ".cpp", ".py", ".sh", ".md", ".cmake", ".cmake.in")
SOURCE_NAMES = {"CMakeLists.txt"}

# (file, text on the offending line, reason). Every entry must still match a problem.
ALLOW = []


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


def source_files(root):
    """The files whose lines check_sources scans, relative to root."""
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not d.startswith("build"))
        rel_dir = os.path.relpath(dirpath, root)
        top = rel_dir.split(os.sep)[0]
        for name in sorted(filenames):
            rel = os.path.normpath(os.path.join(rel_dir, name))
            path = os.path.join(dirpath, name)
            if rel == os.path.join("tests", "tools", "check_links.py"):
                continue  # names the patterns it looks for
            if name.endswith(SOURCE_SUFFIXES) or name in SOURCE_NAMES:
                files.append(rel)
            elif name.endswith(".json") and top in ("scenarios", "tests"):
                files.append(rel)
            elif "." not in name:
                try:
                    with open(path, "rb") as f:
                        if f.read(2) == b"#!":
                            files.append(rel)  # a script
                except OSError:
                    pass
    return files


def placeholder(path):
    if re.search(r"[<>{}$]|\.\.\.", path):
        return True
    return any(PLACEHOLDER.search(part) for part in path.split("/"))


def check_sources(root):
    """Problems of the sources: (file, line number, line, message)."""
    tops = sorted(d for d in os.listdir(root)
                  if os.path.isdir(os.path.join(root, d)) and not d.startswith(".")
                  and d not in SKIP_DIRS and not d.startswith("build"))
    path_re = re.compile(r"(?<![\w./-])((?:%s)/%s*)"
                         % ("|".join(map(re.escape, tops)), PATH_CHARS))
    found = []
    files = source_files(root)
    for rel in files:
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(text.split("\n"), 1):
            for m in TEAM_DOC.finditer(line):
                found.append((rel, number, line,
                              f"names {m.group(0)}, which a clone does not have (the team's "
                              "documents: cite docs/*.md or a rule ID of docs/spec-rules.tsv)"))
            for m in path_re.finditer(line):
                target = m.group(1).rstrip(".:,")
                if placeholder(target) or "//" in target:
                    continue
                last = target.rstrip("/").split("/")[-1]
                if not (target.endswith("/") or "." in last.strip(".") or
                        target.startswith("scripts/")):
                    continue  # a name such as a ctest's, not a file
                bases = [root, os.path.join(root, os.path.dirname(rel))]
                if any(c in target for c in "*?"):
                    if not any(glob.glob(os.path.join(b, target)) for b in bases):
                        found.append((rel, number, line, f"{target} matches no file"))
                elif not any(os.path.exists(os.path.join(b, target)) for b in bases):
                    found.append((rel, number, line, f"names {target}, which does not exist"))
    return files, found


def allowed(found):
    """The problems ALLOW does not excuse, then one problem per unused ALLOW entry."""
    used = set()
    left = []
    for rel, number, line, message in found:
        hit = next((i for i, (path, text, _) in enumerate(ALLOW)
                    if path == rel.replace(os.sep, "/") and text in line), None)
        if hit is None:
            left.append(f"{rel}:{number}: {message}")
        else:
            used.add(hit)
    for i, (path, text, reason) in enumerate(ALLOW):
        if i not in used:
            left.append(f"check_links.py ALLOW: ({path}, {text!r}) matches nothing; remove it "
                        f"(it was: {reason})")
    return left


def check(root):
    root = os.path.realpath(root)
    problems = []
    files = doc_files(root)
    for rel in files:
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as f:
            raw = f.read()
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
    sources, found = check_sources(root)
    problems += allowed(found)
    return sorted(set(files) | set(sources)), problems


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
