"""The fenced blocks of a markdown page, for tests that run a page's commands as written."""

from __future__ import annotations


def fenced(text: str, lang: str) -> list[str]:
    """The blocks of ``text`` fenced with ```` ```lang ```` ("" for untagged blocks, e.g. output shown), in order."""
    found: list[str] = []
    body: list[str] | None = None
    tag = ""
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            if body is None:
                body, tag = [], line[3:].strip()
            else:
                if tag == lang:
                    found.append("".join(body))
                body = None
        elif body is not None:
            body.append(line)
    return found
