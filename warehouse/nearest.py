"""The nearest known names to one that matches nothing, for a hint ("did you mean"): `B2OO` -> B200,
`llama2-70b` -> llama2-70b-99, llama2-70b-99.9. Pure.

Names are compared case-folded, without spaces, dashes, dots or underscores, and with the letters
typed for look-alike digits read as digits (O for 0, I and l for 1). First the names that equal it
so; else the names that start with it or hold it (a benchmark without its accuracy target); else
the closest by difflib's ratio."""
from __future__ import annotations

import difflib
import re

LOOK_ALIKE = str.maketrans({"o": "0", "i": "1", "l": "1"})


def _key(name: str) -> str:
    return re.sub(r"[\s._-]+", "", name.casefold())


def nearest(name: str, known: list[str], at_most: int = 3) -> list[str]:
    """Up to `at_most` of `known` nearest to `name`, the nearest first; [] when none is near."""
    names = sorted(set(known))
    typed = _key(name)
    if not typed:
        return []
    same = [k for k in names if _key(k).translate(LOOK_ALIKE) == typed.translate(LOOK_ALIKE)]
    if same:
        return same[:at_most]
    read = typed.translate(LOOK_ALIKE)
    holding = [k for k in names if typed in _key(k) or read in _key(k).translate(LOOK_ALIKE)]
    if holding:
        return sorted(holding, key=lambda k: (not _key(k).translate(LOOK_ALIKE).startswith(read), len(k), k))[:at_most]
    keys = {_key(k): k for k in names}
    return [keys[k] for k in difflib.get_close_matches(typed, list(keys), n=at_most, cutoff=0.6)]


def did_you_mean(name: str, known: list[str]) -> str:
    """'; nearest: 'B200'' (to end a message with), or '' when nothing is near."""
    found = nearest(name, known)
    return f"; nearest: {', '.join(repr(k) for k in found)}" if found else ""
