"""Progress bars: on a terminal, and in Jupyter, never a warning.

One rule for every long loop of survfair (the bootstrap, simulation studies): a bar is drawn when
the caller asks for one (``progress=True``) and someone can see it: stderr is a terminal, or the
code runs in a Jupyter kernel. In Jupyter the widget bar of ``tqdm.notebook`` is used when
ipywidgets is installed and the plain text bar otherwise, so ``tqdm.auto``'s ``TqdmWarning``
("IProgress not found") never reaches the user. Anywhere else (a pipe, a log file, CI) the bar is
disabled, so logs are not filled with carriage returns.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from typing import Any

__all__ = ["progress_bar", "PhaseBar"]


def _in_jupyter() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    ipython = shell.get_ipython() if hasattr(shell, "get_ipython") else None
    return ipython is not None and "IPKernelApp" in getattr(ipython, "config", {})


def progress_bar(total: int, desc: str, enabled: bool, **kwargs: Any):
    """A tqdm bar of ``total`` steps, shown only when ``enabled`` and someone can see it."""
    jupyter = _in_jupyter()
    show = bool(enabled) and (jupyter or _stderr_is_terminal())
    if show and jupyter and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.notebook import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm(total=total, desc=desc, disable=not show, **kwargs)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class PhaseBar:
    """A bar of named phases (``with PhaseBar([...], desc, enabled) as phases: phases.advance()``):
    each ``advance()`` completes the running phase and shows the next name of the list; the bar
    shows the running phase and the elapsed time. Drawn under the same rule as :func:`progress_bar`.

    The clock keeps moving while a phase blocks in one long call (one big pair count): a background
    thread redraws the bar every :attr:`TICK` seconds, since tqdm itself only redraws on an update.
    A note in parentheses at the end of a phase's name ("pair counts (a note)") is written on
    its own line above the bar, so the bar line stays short and the note is never cut at the
    terminal's width; the bar shows the name without it.
    """

    #: seconds between two redraws of the clock
    TICK = 1.0

    def __init__(self, phases: list[str], desc: str, enabled: bool):
        self._bar = progress_bar(
            len(phases),
            desc,
            enabled,
            bar_format="{desc}: {n_fmt}/{total_fmt} |{bar}| {elapsed}{postfix}",
        )
        self._desc = desc
        self._names = iter(phases)
        self._running = False
        self._stop = threading.Event()
        self._clock = None
        if not self._bar.disable:
            self._clock = threading.Thread(
                target=self._tick, name="survfair-progress-clock", daemon=True
            )
            self._clock.start()

    def _tick(self) -> None:
        while not self._stop.wait(self.TICK):
            self._bar.refresh()

    def advance(self) -> None:
        if self._running:
            self._bar.update(1)
        self._running = True
        name, note = _split_note(next(self._names))
        if note and not self._bar.disable:
            self._bar.write(
                f"{self._desc}: {note}", file=getattr(self._bar, "fp", None) or sys.stderr
            )
        self._bar.set_postfix_str(name)

    def __enter__(self) -> "PhaseBar":
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        if self._clock is not None:
            self._clock.join()
        if self._running and exc_info[0] is None:
            self._bar.update(1)
            self._bar.set_postfix_str("done", refresh=False)
        self._bar.close()


def _split_note(name: str) -> tuple[str, str]:
    """``"pair counts (compiling ...)"`` -> ``("pair counts", "compiling ...")``; a name without a
    final parenthesis is its own name, without a note."""
    if name.endswith(")") and " (" in name:
        head, _, note = name.partition(" (")
        return head, note[:-1]
    return name, ""
