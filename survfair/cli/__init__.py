"""The ``survfair`` command line: ``survfair audit``, ``survfair mitigate``, ``survfair simulate``.

One package: :mod:`._errors` (the one error type :class:`CLIError`, exit codes, one-line errors
and warnings), :mod:`._io` (the one CSV/Parquet reader and writer, output-path checks, formula
neutralisation), :mod:`._options` (the data and estimator options shared by the subcommands),
and one module per subcommand (:mod:`._audit`, :mod:`._binary`, :mod:`._mitigate`,
:mod:`._simulate`). Exit codes: 0 success, 1 internal error (a bug), 2 bad input or options.
"""

from ._errors import CLIError
from ._main import build_parser, main

__all__ = ["main", "build_parser", "CLIError"]
