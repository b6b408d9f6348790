"""Text for a terminal: what a label read from a file may contain that a terminal would obey.

Pure Python (no pandas), so the command line's error printer can use it without loading the
numeric stack.
"""

from __future__ import annotations

import re

__all__ = ["terminal_safe"]

#: Bidirectional controls reorder what a terminal shows ("Trojan source"): escaped like controls.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
#: C0 controls but the line break, DEL, C1 controls (Unicode category Cc) and the bidi controls
_UNSAFE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f" + _BIDI + "]")


def _escaped(match: re.Match) -> str:
    return repr(match.group())[1:-1]


def terminal_safe(text: str) -> str:
    """``text`` with its control characters escaped as Python writes them in a repr (``\\x1b``,
    ``\\r``, ``\\t``, ``\\u202e``), the line breaks kept: a group label read from a file is
    printed, not obeyed by the terminal (an escape sequence could recolour or rewrite the
    screen). Other characters, Δ or é among them, are kept as they are.

    >>> terminal_safe("\\x1b[31mF\\tΔ é\\n")
    '\\\\x1b[31mF\\\\tΔ é\\n'
    """
    return _UNSAFE.sub(_escaped, text)
