# SPDX-License-Identifier: Apache-2.0
"""Markdown table helpers shared by the generated docs (the docs must stay byte-identical)."""


def cell(text):
    """Text made safe for a table cell: a `|` would end the cell."""
    return str(text).replace("|", "\\|")


def row(cells):
    """`| a | b |` (cells as given: escape them with cell() first where they may hold `|`)."""
    return "| " + " | ".join(str(c) for c in cells) + " |"


def header(names):
    """The two header lines of a table: names and the `|---|---|` rule."""
    return [row(names), "|" + "---|" * len(names)]


def series(title, xs, rows):
    """A table with a column per x: `| title | x1 | x2 |`, the rule, then a row per
    (label, values, format spec) with each value formatted by the spec (".2f")."""
    return header([title] + [str(x) for x in xs]) + [
        row([label] + [format(v, spec) for v in values]) for label, values, spec in rows]
