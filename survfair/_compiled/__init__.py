"""survfair's compiled kernels (Cython, built ahead of time by the package's build).

``_kaplan_meier`` serves :mod:`survfair._core.censoring` (the censoring Kaplan-Meier sweep and step
lookups), ``_pairs`` :mod:`survfair._core.kernel` (the preparation sweeps and the column passes that
count pairs and gather each row's contributions), ``_influence`` :mod:`survfair._core.influence`
(the sweep that turns contributions into influence rows). They take validated, contiguous arrays
from those modules and nothing else imports them. ``n_jobs`` reaches them as an OpenMP thread count.

The functions below turn arrays into what the kernels' typed memoryviews take, without a copy when
they already are: the three modules call them on every argument.
"""

import numpy as np

#: integer dtypes the kernels take for group codes
#: (int16 normally; an index type past 32,767 groups)
CODE_TYPES = (np.int16, np.int32, np.int64)
#: integer dtypes the kernels take for row positions (int32 below 2^31 rows)
INDEX_TYPES = (np.int32, np.int64)


def floats(values) -> np.ndarray:
    """Float64, C-contiguous."""
    return np.ascontiguousarray(values, dtype=np.float64)


def flags(values) -> np.ndarray:
    """Booleans as the kernels read them: one byte each (a uint8 view of a bool array)."""
    return np.ascontiguousarray(values, dtype=np.bool_).view(np.uint8)


def indices(values, dtypes: tuple = INDEX_TYPES) -> np.ndarray:
    """Integers of one of ``dtypes`` (each compiled for), else converted to the last of them."""
    values = np.asarray(values)
    dtype = values.dtype if values.dtype in dtypes else dtypes[-1]
    return np.ascontiguousarray(values, dtype=dtype)
