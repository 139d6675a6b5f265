"""Hand-edited asset JSON: `//` and `/* */` comments and trailing commas, blanked out in place.

Strict JSON is tried first; only a file that fails is relaxed, and each relaxation is reported
(as a warning) with its line and column. Every removed character becomes a space (newlines are
kept), so the parser's line and column numbers still point into the file as written.
"""

from __future__ import annotations


def _line_col(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    return f"line {line} column {index - (text.rfind(chr(10), 0, index) + 1) + 1}"


def relax(text: str) -> tuple[str, list[tuple[str, str]]]:
    """`text` with comments and trailing commas blanked, and (place, what) for each one."""
    out = list(text)
    found: list[tuple[str, str]] = []
    n = len(text)
    i = 0
    last_comma: int | None = None  # a comma with only blanks or comments after it so far
    while i < n:
        ch = text[i]
        if ch == '"':
            last_comma = None
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if ch == "/" and i + 1 < n and text[i + 1] in "/*":
            end = (text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i + 2))
            end = n if end < 0 else (end if text[i + 1] == "/" else end + 2)
            found.append((_line_col(text, i), "comment"))
            for k in range(i, end):
                if out[k] != "\n":
                    out[k] = " "
            i = end
            continue
        if ch in "}]" and last_comma is not None:
            found.append((_line_col(text, last_comma), f"trailing comma before '{ch}'"))
            out[last_comma] = " "
        if ch == ",":
            last_comma = i
        elif not ch.isspace():
            last_comma = None
        i += 1
    return "".join(out), found
