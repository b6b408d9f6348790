"""The one reader and writer of the command line, and the checks of output paths.

* :func:`read_table` reads a CSV (through pandas' ``pyarrow`` engine) or Parquet file, chosen by
  extension, optionally only some columns, and names the option and column when one is missing.
* :func:`check_output_paths` refuses, before anything is computed, output paths with a wrong
  extension, in a missing directory, equal to the input or to each other.
* :func:`refuse_special_file` refuses an existing output path that is not a regular file (a
  symbolic link, a named pipe, a device, a socket): the command line writes only to regular files
  or new paths, and never replaces anything else.
* :func:`staged_outputs` writes the results, all or none; CSV tables composed by survfair go
  through :func:`neutralise_formulas` (spreadsheet formula injection).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from .._core.progress import progress_bar
from ._errors import CLIError

__all__ = [
    "TABLE_SUFFIXES",
    "REPORT_SUFFIXES",
    "read_table",
    "table_columns",
    "require_columns",
    "check_output_paths",
    "refuse_special_file",
    "check_output_folder",
    "check_report_path",
    "neutralise_formulas",
    "staged_outputs",
]

#: File types of data tables, by extension.
TABLE_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
#: File types of reports (:func:`survfair.write_report`).
REPORT_SUFFIXES = (".html", ".htm", ".md")

#: First characters that make a spreadsheet read a text cell as a formula (OWASP, "CSV injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def _kind(path: str, option: str) -> str:
    suffix = Path(path).suffix.lower()
    kind = TABLE_SUFFIXES.get(suffix)
    if kind is None:
        raise CLIError(
            f"{option}: unsupported file type {suffix or '(none)'!r} of {path}; "
            "use .csv or .parquet."
        )
    return kind


def _existing_file(path: str, option: str) -> Path:
    file = Path(path)
    if not file.exists():
        raise CLIError(f"{option}: file {path!r} does not exist.")
    if file.is_dir():
        raise CLIError(f"{option}: {path!r} is a directory, not a file.")
    return file


def table_columns(path: str, option: str = "--data") -> list[str]:
    """The column names of a CSV or Parquet file (its header only)."""
    kind = _kind(path, option)
    file = _existing_file(path, option)
    try:
        if kind == "csv":
            return [str(c) for c in pd.read_csv(file, nrows=0).columns]
        import pyarrow.parquet as pq

        schema = pq.read_schema(file)
        stored = (schema.pandas_metadata or {}).get("index_columns", []) if schema.metadata else []
        index = {
            name for name in stored if isinstance(name, str)
        }  # a RangeIndex is a dict, not a column
        return [name for name in schema.names if name not in index]
    except (OSError, ValueError, TypeError) as error:  # parser errors are ValueErrors
        raise CLIError(
            f"{option}: cannot read {path} as {kind.upper() if kind == 'csv' else 'Parquet'}: "
            f"{_reason(error)}"
        ) from error


def _reason(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else "unreadable file"


def require_columns(
    path: str, available: Sequence[str], wanted: Mapping[str, Iterable[str]]
) -> None:
    """Refuse option values that are not columns of the data, naming the option and the column.

    ``wanted`` maps an option (``"--risk"``) to the column names given for it.
    """
    present = set(available)
    for option, columns in wanted.items():
        for column in columns:
            if column is not None and column not in present:
                shown = ", ".join(available[:20]) + (", ..." if len(available) > 20 else "")
                raise CLIError(
                    f"{option}: column {column!r} is not in data file "
                    f"{path}{_delimiter_hint(path)} (columns: {shown})."
                )


#: Delimiters a CSV file may have been written with instead of the comma survfair reads.
_OTHER_DELIMITERS = {";": "semicolon", "\t": "tab", "|": "vertical bar"}


def _delimiter_hint(path: str) -> str:
    """A hint when a CSV file's header line holds more semicolons, tabs or vertical bars than
    commas: the file was probably written with that delimiter (a spreadsheet in a locale with a
    decimal comma writes semicolons). The parse is not changed: the user converts the file."""
    if _kind(path, "--data") != "csv":
        return ""
    try:
        with open(path, "rb") as handle:
            line = handle.readline(1 << 16).decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError:
        return ""
    delimiter = max(_OTHER_DELIMITERS, key=line.count)
    if line.count(delimiter) <= line.count(","):
        return ""
    return (
        f"; its header line looks {_OTHER_DELIMITERS[delimiter]}-delimited, but survfair reads "
        "comma-separated CSV: save the file with commas (or as Parquet)"
    )


def read_table(
    path: str,
    columns: Sequence[str] | None = None,
    *,
    option: str = "--data",
    progress: bool = False,
) -> pd.DataFrame:
    """Read a CSV or Parquet file (by extension): every column, or only ``columns``.

    Only the columns asked for are parsed (pyarrow's column selection). With ``progress`` a bar is
    drawn on a terminal: rows read, one Parquet row group at a time; a CSV is parsed in one call
    (pyarrow's streaming reader would fix each column's type from the first block), so its bar
    shows the elapsed time and the rows when done.

    Raises
    ------
    CLIError
        If the file is missing, of another type, unreadable, or lacks one of ``columns``.
    """
    kind = _kind(path, option)
    file = _existing_file(path, option)
    wanted = None if columns is None else list(dict.fromkeys(columns))
    try:
        if kind == "csv":
            with progress_bar(
                None, f"reading {file.name}", progress, unit=" rows", unit_scale=True
            ) as bar:
                frame = pd.read_csv(file, engine="pyarrow", usecols=wanted)
                bar.update(len(frame))
            return frame
        return _read_parquet(file, wanted, progress)
    except (
        OSError,
        ValueError,
        TypeError,
        KeyError,
    ) as error:  # pyarrow's errors derive from these
        raise CLIError(
            f"{option}: cannot read {path} as {'CSV' if kind == 'csv' else 'Parquet'}: "
            f"{_reason(error)}"
        ) from error


def _read_parquet(file: Path, columns: list[str] | None, progress: bool) -> pd.DataFrame:
    """A Parquet file one row group at a time (the bar's steps), with its stored pandas index."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(file)
    parts = []
    with progress_bar(
        parquet.metadata.num_rows, f"reading {file.name}", progress, unit=" rows", unit_scale=True
    ) as bar:
        for index in range(parquet.num_row_groups):
            parts.append(parquet.read_row_group(index, columns=columns, use_pandas_metadata=True))
            bar.update(parts[-1].num_rows)
    if not parts:  # a file without row groups: its schema's (empty) columns
        parts = [
            parquet.schema_arrow.empty_table().select(columns)
            if columns
            else parquet.schema_arrow.empty_table()
        ]
    table = pa.concat_tables(parts)
    del parts
    return table.to_pandas()


_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def _special_kind(path: str | Path) -> str | None:
    """What ``path`` is when it exists and is not a regular file (a symbolic link is reported as
    such, never followed); None for a regular file or a path that does not exist."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError:  # unreadable parent etc.: the write itself will say why
        return None
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def refuse_special_file(path: str | Path, option: str, *, stdout: bool = False) -> None:
    """Refuse an output path that exists and is not a regular file.

    ``os.replace`` (how staged outputs are moved into place) replaces whatever the path names: run
    as root, ``--output /dev/full`` turned the device into a regular file; a symbolic link or a
    named pipe would be replaced by a file too, and a direct write follows the link or blocks on
    the pipe. So the command line writes only to regular files or new paths. To write to a pipe,
    a device or standard output, leave out ``--output`` (standard output is its default) and
    redirect the shell's output.

    ``stdout``: the option's default is standard output, which the message then suggests.

    Raises
    ------
    CLIError
        Naming the option, the path and what it is.
    """
    kind = _special_kind(path)
    if kind is None:
        return
    if kind == "a directory":
        raise CLIError(f"{option}: {str(path)!r} is a directory, not a file.")
    hint = (
        f" (to write to a pipe or device, leave out {option} and redirect standard output)"
        if stdout
        else ""
    )
    raise CLIError(
        f"{option}: {str(path)!r} is {kind}, not a regular file; survfair writes only to regular "
        f"files or new paths{hint}."
    )


def check_output_folder(folder: str | Path, option: str, names: Iterable[str] = ()) -> None:
    """Refuse an output folder that exists and is not a directory (a symbolic link to one is
    accepted: the user named it), and any of the files ``names`` in it that exists and is not a
    regular file (see :func:`refuse_special_file`)."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise CLIError(f"{option}: {str(folder)!r} is not a directory.")
    for name in names:
        refuse_special_file(folder / name, option)


def check_report_path(path: str | Path, option: str = "--report") -> None:
    """:func:`refuse_special_file` for a report, and for a Markdown report its figures folder
    ``<stem>_files/`` and the ``figure_*.png`` files already in it (:func:`survfair.write_report`
    writes them directly)."""
    path = Path(path)
    refuse_special_file(path, option)
    if path.suffix.lower() == ".md":
        folder = path.parent / f"{path.stem}_files"
        if (
            folder.is_symlink()
        ):  # derived from the report's name, not named by the user: not followed
            refuse_special_file(folder, option)
        check_output_folder(
            folder,
            option,
            sorted(p.name for p in folder.glob("figure_*.png")) if folder.is_dir() else (),
        )


def _same_file(a: str, b: str) -> bool:
    first, second = Path(a), Path(b)
    if first.resolve() == second.resolve():
        return True
    try:
        return first.exists() and second.exists() and os.path.samefile(first, second)
    except OSError:
        return False


def check_output_paths(
    outputs: Mapping[str, str | None],
    *,
    data: str | None = None,
    suffixes: Mapping[str, Sequence[str]] | None = None,
    stdout: str | None = None,
) -> None:
    """Check every output path before anything is computed.

    Parameters
    ----------
    outputs : mapping of option -> path or None
        E.g. ``{"--output": "audit.json", "--report": "audit.html"}``; None = not given.
    data : str, optional
        The input file, which no output may overwrite.
    suffixes : mapping of option -> allowed extensions, optional
        Options whose file type is fixed by the extension (``--report``: .html, .htm, .md).
    stdout : str, optional
        The option whose default is standard output (``--output`` of ``survfair audit``).

    Raises
    ------
    CLIError
        For an extension not allowed, a directory that does not exist (the same rule for every
        output: nothing is created), a path that exists and is not a regular file (a directory, a
        symbolic link, a named pipe, a device: :func:`refuse_special_file`), an output equal to
        ``data`` or two outputs that are the same file.
    """
    given = {option: path for option, path in outputs.items() if path}
    for option, path in given.items():
        allowed = (suffixes or {}).get(option)
        suffix = Path(path).suffix.lower()
        if allowed is not None and suffix not in allowed:
            raise CLIError(
                f"{option}: unsupported file type {suffix or '(none)'!r} of {path}; "
                f"use {', '.join(allowed[:-1])} or {allowed[-1]}."
            )
        target = Path(path)
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.exists():
            raise CLIError(f"{option}: directory {str(parent)!r} does not exist; create it first.")
        if not parent.is_dir():
            raise CLIError(f"{option}: {str(parent)!r} is not a directory.")
        refuse_special_file(
            path, option, stdout=option == stdout
        )  # a directory, link, pipe, device, socket
        if option == "--report":  # and a Markdown report's figures folder
            check_report_path(path, option)
        if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
            raise CLIError(f"{option}: cannot write {path!r} (permission denied).")
        if data is not None and _same_file(path, data):
            raise CLIError(
                f"{option}: {path!r} is the --data file; refusing to overwrite the input."
            )
    options = list(given)
    for i, first in enumerate(options):
        for second in options[i + 1 :]:
            if _same_file(given[first], given[second]):
                raise CLIError(
                    f"{first} and {second} name the same file ({given[first]!r}); "
                    "give two different files."
                )


def _neutralise(value):
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy in which text cells starting with ``= + - @``, a tab or a carriage return get a
    leading single quote, so that spreadsheets show them as text instead of running a formula
    (OWASP's advice against CSV injection). Numeric columns are left alone (-1.5 stays a number)."""
    out = frame.copy()
    for column in out.columns:
        series = out[column]
        if pd.api.types.is_object_dtype(series.dtype) or pd.api.types.is_string_dtype(series.dtype):
            out[column] = _neutralised(series)
        elif isinstance(series.dtype, pd.CategoricalDtype):
            out[column] = series.astype(object).map(_neutralise, na_action="ignore")
    return out


def _neutralised(series: pd.Series) -> pd.Series:
    """``series.map(_neutralise, na_action="ignore")``, without a Python call per value for the
    columns of an audit's CSV (4 million rows at 2,000 groups): an object column of text has each
    distinct value checked once; one of booleans (and missing values) has nothing to neutralise and
    is written as it is. Other columns are mapped value by value, as before (the map may change
    their dtype, and with it how to_csv writes them)."""
    if series.dtype != object:
        return series.map(_neutralise, na_action="ignore")
    kind = pd.api.types.infer_dtype(series, skipna=True)
    if kind in ("boolean", "empty"):
        return series
    if kind != "string":
        return series.map(_neutralise, na_action="ignore")
    values = series.to_numpy(dtype=object, copy=True)
    codes, distinct = pd.factorize(values)
    formulas = [k for k, text in enumerate(distinct) if text.startswith(FORMULA_PREFIXES)]
    if formulas:
        changed = np.isin(codes, formulas)
        values[changed] = ["'" + text for text in values[changed]]
    return pd.Series(values, index=series.index, name=series.name, dtype=object)


class _Staged:
    """Outputs written to temporary files beside their targets, moved into place together."""

    def __init__(self) -> None:
        self._moves: list[tuple[str, Path, str]] = []
        self._stdout: list[str] = []

    def _temporary(self, path: str, option: str) -> str:
        target = Path(path)
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".part"
        )
        os.close(handle)
        self._moves.append((temporary, target, option))
        return temporary

    def text(self, text: str, path: str | None, option: str = "--output") -> None:
        """``text`` to ``path``, or to stdout without a path (also only at the end)."""
        if not path:
            self._stdout.append(text)
            return
        Path(self._temporary(path, option)).write_text(text, encoding="utf-8")

    def table(
        self, frame: pd.DataFrame, path: str, option: str, *, neutralise: bool = True
    ) -> None:
        """A table as CSV or Parquet (by the extension of ``path``), CSV text cells neutralised
        unless ``neutralise`` is False."""
        kind = _kind(path, option)
        temporary = self._temporary(path, option)
        if kind == "csv":
            (neutralise_formulas(frame) if neutralise else frame).to_csv(temporary, index=False)
        else:
            frame.to_parquet(temporary, index=False)

    def commit(self) -> None:
        # checked again just before the move (the path may have changed while computing):
        # os.replace would replace a link, a pipe or a device as readily as a file
        try:
            for _, target, option in self._moves:
                refuse_special_file(target, option)
        except CLIError:
            self.discard()
            raise
        for temporary, target, _ in self._moves:
            os.replace(temporary, target)
        self._moves.clear()
        for text in self._stdout:
            sys.stdout.write(text)

    def discard(self) -> None:
        for temporary, _, _ in self._moves:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


@contextlib.contextmanager
def staged_outputs() -> Iterator[_Staged]:
    """Write a command's outputs all or none: each goes to a temporary file beside its target
    and is moved into place only when the block (the report, written last, included) succeeds;
    on any error the temporary files are removed and nothing has been written."""
    stage = _Staged()
    try:
        yield stage
    except BaseException:
        stage.discard()
        raise
    stage.commit()
