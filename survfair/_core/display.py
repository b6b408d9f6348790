"""The HTML of results in Jupyter, by registration: no result imports the layer that draws it.

A result class's ``_repr_html_`` calls :func:`html_of`. The presentation layer registers one
renderer per class (:func:`register_html`); the package wires the two together by adding a
loader (:func:`add_loader`) that imports the presentation layer the first time a result is
displayed, so ``import survfair`` stays light and ``_core`` knows nothing of ``_present``.
Without a renderer, ``html_of`` returns None and Jupyter shows the plain ``repr``.
"""

from __future__ import annotations

from typing import Any, Callable

_RENDERERS: dict[type, Callable[[Any], str]] = {}
_LOADERS: list[Callable[[], None]] = []


def register_html(cls: type, render: Callable[[Any], str]) -> None:
    """Draw instances of ``cls`` (and of its subclasses without their own) with ``render``."""
    _RENDERERS[cls] = render


def add_loader(load: Callable[[], None]) -> None:
    """Call ``load`` once, before the first lookup (it is expected to register renderers)."""
    _LOADERS.append(load)


def html_of(result: Any) -> str | None:
    """The HTML of ``result`` by the renderer registered for its class, or None."""
    while _LOADERS:
        _LOADERS[0]()  # removed only once it has run: a failed import is tried again next time
        _LOADERS.pop(0)
    for cls in type(result).__mro__:
        render = _RENDERERS.get(cls)
        if render is not None:
            return render(result)
    return None
