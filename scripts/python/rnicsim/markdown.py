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
