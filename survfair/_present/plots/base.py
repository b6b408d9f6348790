"""Shared plotting helpers of survfair's figures (a home for what several plotting modules use).

:mod:`survfair.plotting`, :mod:`survfair._present.plots.calibration`, :mod:`survfair.simulate` and
:mod:`survfair.mitigate` draw with these; matplotlib is imported only when an axes is made.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._core.exceptions import InvalidParameterError
from ..._core.options import Option

__all__ = [
    "new_axes",
    "literal",
    "literal_legend",
    "short_label",
    "difference_limit",
    "MAX_LABEL",
    "MAX_TEXT",
]

#: Longest group label or model name drawn in a figure, in characters; a longer one is cut with
#: an ellipsis ("…"). Tables, JSON and the report's text keep the full label. A 10,000-character
#: label made a report's figure ask matplotlib for a canvas it could not allocate (MemoryError).
MAX_LABEL = 40
#: Longest text of any kind drawn in a figure (titles, legend entries, tick labels composed of
#: several labels): the cap :func:`literal` applies to everything it escapes.
MAX_TEXT = 200


def short_label(label: Any, limit: int = MAX_LABEL) -> str:
    """``str(label)`` cut to ``limit`` characters, the last one an ellipsis, when it is longer."""
    text = str(label)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def new_axes(ax: Any, figsize: tuple[float, float] = (5.0, 4.0)):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return check_axes(ax)


def check_axes(ax: Any, name: str = "ax") -> Any:
    """``ax`` if it is a matplotlib Axes; otherwise :class:`~survfair.InvalidParameterError`."""
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise InvalidParameterError(
            f"{name} must be a matplotlib Axes or None, got a {type(ax).__name__}.", parameter=name
        )
    return ax


def _check_optional_axes(ax: Any, name: str) -> Any:
    return None if ax is None else check_axes(ax, name)


def _check_cmap(cmap: Any, name: str) -> Any:
    from matplotlib.colors import Colormap

    if isinstance(cmap, (str, Colormap)):
        return cmap
    raise InvalidParameterError(
        f"{name} must be a colormap name or a matplotlib Colormap, got a {type(cmap).__name__}.",
        parameter=name,
    )


#: The rows of the plotting functions' option tables: ``ax=`` (None: a new figure) and ``cmap=``.
AXES = Option(_check_optional_axes, "None or a matplotlib Axes")
CMAP = Option(_check_cmap, "a colormap name or a matplotlib Colormap")


def literal(text: Any) -> str:
    r"""``text`` as a string that matplotlib draws literally: every ``$`` escaped as ``\$``.

    Unescaped, a group named "$0-$50k" is set as italic mathtext and "a$_$b" makes drawing fail
    with a mathtext parse error. An escaped dollar is drawn as a plain ``$`` in any Text
    (tick label, title, legend entry, annotation), also in a legend the caller rebuilds later from
    the artists' labels and in tick labels matplotlib re-creates -- which ``parse_math=False`` on
    our own Text objects would not cover. ``get_text()`` / ``get_label()`` therefore return the
    escaped form; what is drawn is the label itself. (Under ``text.usetex`` TeX reads ``\$`` as a
    dollar too, but other TeX specials such as ``_`` or ``%`` are not escaped.)

    A text longer than :data:`MAX_TEXT` characters is cut with an ellipsis (see
    :func:`short_label`).
    """
    return short_label(text, MAX_TEXT).replace("$", r"\$")


def literal_legend(ax: Any, entries: list[tuple[Any, str]], **kwargs: Any):
    """Legend of ``(artist, label)`` pairs, each label drawn literally (see :func:`literal`).

    The pairs are passed explicitly, so a label that starts with ``_`` (which ``ax.legend()``
    takes for a hidden artist) still gets its entry; the texts are set after the legend is built
    because matplotlib < 3.10 drops such labels even when they are passed explicitly.
    """
    if not entries:
        return None
    legend = ax.legend([artist for artist, _ in entries], ["label"] * len(entries), **kwargs)
    for text, (_, label) in zip(legend.get_texts(), entries):
        text.set_text(literal(label))
    return legend


def difference_limit(matrices) -> float:
    """The symmetric colour limit of difference heatmaps: the largest absolute finite difference of
    ``matrices``, rounded up to a multiple of 0.05 (at least 0.05); one limit shared by every
    difference heatmap of a report makes their colours comparable."""
    largest = max(
        (float(np.nanmax(np.abs(m))) for m in matrices if np.isfinite(m).any()), default=0.0
    )
    return max(0.05, math.ceil(largest / 0.05 - 1e-9) * 0.05)
