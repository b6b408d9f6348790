"""Every public signature of survfair, and a before/after table between two checkouts.

    python scripts/public_signatures.py dump OUT.json          # the installed / importable survfair
    python scripts/public_signatures.py table OLD.json NEW.json  # Markdown table, one row per name

To compare with an older commit: ``git worktree add /tmp/old <commit>`` and
``PYTHONPATH=/tmp/old python scripts/public_signatures.py dump old.json``.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import sys

MODULES = ("survfair", "survfair.mitigate", "survfair.simulate", "survfair.plotting")
EXPORTS = ("to_frame", "to_dict", "confidence_interval")


def _describe(obj) -> str:
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return "exception"
        members = {}  # the class's own and inherited members (not object's), nearest first
        for cls in reversed(obj.__mro__[:-1]):
            members.update(vars(cls))
        methods = sorted(m for m, v in members.items() if not m.startswith("_") and callable(v))
        properties = sorted(m for m, v in members.items() if isinstance(v, property))
        fields = [f.name for f in dataclasses.fields(obj)] if dataclasses.is_dataclass(obj) else []
        return (
            f"class; fields: {', '.join(fields) or '-'}; methods: {', '.join(methods) or '-'}; "
            f"properties: {', '.join(properties) or '-'}"
        )
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "-"


def dump(path: str) -> None:
    out = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", []):
            obj = getattr(module, attribute, None)
            if obj is not None and not inspect.ismodule(obj) and callable(obj):
                out[f"{name}.{attribute}"] = _describe(obj)
    with open(path, "w") as handle:
        json.dump(out, handle, indent=1, sort_keys=True)


def _cell(text: str) -> str:
    if text in ("(new)", "(removed)", "unchanged"):
        return text
    return "`" + text.replace("|", "\\|") + "`"


def table(old_path: str, new_path: str) -> str:
    old, new = json.load(open(old_path)), json.load(open(new_path))
    lines = ["| name | before | after |", "|---|---|---|"]
    for key in sorted(set(old) | set(new)):
        before, after = old.get(key, "(new)"), new.get(key, "(removed)")
        if before == after:
            after = "unchanged"
        lines.append(f"| `{key}` | {_cell(before)} | {_cell(after)} |")
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:2] == ["dump"]:
        dump(sys.argv[2])
    elif sys.argv[1:2] == ["table"]:
        print(table(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
