"""Progress bars (survfair._core.progress): the phase bar's clock and notes."""

from __future__ import annotations

import re
import time

from survfair._core import progress as _progress
from survfair._core.progress import PhaseBar


def test_the_clock_moves_while_a_phase_blocks(monkeypatch, capsys):
    """Issue 32.6: the elapsed time stood still during one long call between two updates (numba
    compiling the kernels, then); a background thread now redraws the bar every second."""
    monkeypatch.setattr(_progress, "_stderr_is_terminal", lambda: True)
    monkeypatch.setattr(PhaseBar, "TICK", 0.2)
    with PhaseBar(["pair counts", "output"], "survfair audit", True) as phases:
        phases.advance()
        time.sleep(1.3)  # one blocking call: no update from the caller
        phases.advance()
    err = capsys.readouterr().err
    clocks = set(re.findall(r"\| (00:0\d), pair counts", err))
    assert {"00:00", "00:01"} <= clocks
    assert "2/2" in err and "done" in err


def test_the_compile_note_is_its_own_line_and_never_cut(monkeypatch, capsys):
    """Issue 32.6: "compiling the kernels: first run on this machine" was cut at 100 columns."""
    monkeypatch.setattr(_progress, "_stderr_is_terminal", lambda: True)
    monkeypatch.setenv("TQDM_NCOLS", "100")
    name = "pair counts and bootstrap intervals (compiling the kernels: first run on this machine)"
    with PhaseBar([name, "findings and output"], "survfair audit", True) as phases:
        phases.advance()
        phases.advance()
    err = capsys.readouterr().err
    assert "survfair audit: compiling the kernels: first run on this machine\n" in err
    lines = [line for chunk in err.split("\n") for line in chunk.split("\r") if line.strip()]
    assert all(len(line) <= 100 for line in lines)
    assert any(line.endswith("pair counts and bootstrap intervals") for line in lines)


def test_no_clock_thread_without_a_bar(capsys):
    with PhaseBar(["a (note)"], "x", False) as phases:
        assert phases._clock is None
        phases.advance()
    assert capsys.readouterr().err == ""
