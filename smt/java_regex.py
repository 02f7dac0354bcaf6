"""Java regular expressions and replacement strings, as far as Python's ``re`` can take them.

Kafka's routers and TopicNameMatches take ``java.util.regex`` patterns; the
common syntax is the same in Python.  Java-only constructs that Python
spells differently are rewritten (possessive quantifiers and atomic groups
are supported by Python 3.11+ natively); a pattern Python cannot compile is a
config error.  Replacement strings use ``$1``/``${name}`` for groups and
``\\$`` for a literal dollar, as in ``Matcher.replaceFirst``.
"""

from __future__ import annotations

import re

__all__ = ["compile_java_regex", "java_replacement"]


def compile_java_regex(pattern: str) -> re.Pattern:
    """Compile ``pattern``; raises ValueError with Kafka's wording when it is invalid."""
    try:
        return re.compile(
            pattern.replace("(?<", "(?P<").replace("(?P<=", "(?<=").replace("(?P<!", "(?<!").replace("\\k<", "(?P=")
        )
    except re.error as exc:
        raise ValueError(f"Invalid regex: {exc}") from None


def java_replacement(replacement: str) -> str:
    """A Java replacement (``$1``, ``${name}``, ``\\$``) in ``Match.expand`` syntax."""
    out: list[str] = []
    index = 0
    while index < len(replacement):
        char = replacement[index]
        if char == "\\" and index + 1 < len(replacement):
            out.append(replacement[index + 1].replace("\\", "\\\\"))
            index += 2
        elif char == "$" and index + 1 < len(replacement) and replacement[index + 1] == "{":
            end = replacement.index("}", index)
            out.append(f"\\g<{replacement[index + 2 : end]}>")
            index = end + 1
        elif char == "$" and index + 1 < len(replacement) and replacement[index + 1].isdigit():
            end = index + 1
            while end < len(replacement) and replacement[end].isdigit():
                end += 1
            out.append(f"\\g<{replacement[index + 1 : end]}>")
            index = end
        else:
            out.append("\\\\" if char == "\\" else char)
            index += 1
    return "".join(out)
