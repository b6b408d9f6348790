"""Is the reference the model's own? The agreement between the score and the predictions.

The model-based xCI is ``sum h(r_i, r_j) pi_ij / sum pi_ij``: the concordance the *score* r would
have if the *predictions* (the pi) were true. When the predictions describe the population well,
the observed xCI estimates that same quantity whatever the score is: a score that ignores a group's
baseline, pure noise or a score that ranks one group above the other all have an excess near 0
against the true curves. The excess separates "what the groups' risks imply" from "what the model
adds" only when the score is the ranking of the predictions the reference is built from (the
model's own). This module measures how far it is.

The agreement of cell (a, b) is the share of pairs (i in a, j in b) that the score orders as the
predictions' risk at tau orders them, among the pairs tied in neither (a coarsened score, e.g.
deciles of the predictions, agrees fully): ``sum 1[r_i > r_j] / sum 1[r_i != r_j]`` over the pairs
with ``R_i(tau) > R_j(tau)``, R the predicted risk at tau (for a proportional-hazards reference the
linear predictor, for a binary outcome the probability). Every ordered pair of the analysed rows
counts, not only the comparable ones. It is one naive pass of the xCI kernel with the reference's
risk ranks as times: O(G^2 n log n).
"""

from __future__ import annotations

import numpy as np

from .._core.exceptions import InvalidParameterError
from .._core.kernel import PairOptions, count_pairs, prepare_pairs

__all__ = [
    "CONSISTENT_AGREEMENT",
    "REFUSED_AGREEMENT",
    "reference_agreement",
    "check_reference_agreement",
]

#: From this agreement in every cell the score is read as the ranking of the reference's
#: predictions. Measured: a PH linear predictor against its own reference 1.0 by construction; a
#: random survival forest's risk score (its summed cumulative hazard) against its own curves at tau
#: 0.95-0.98 on whas500 (tau 365 to 1,800 days, per sex).
CONSISTENT_AGREEMENT = 0.9
#: Below this agreement in any cell the reference is refused. Measured on a cohort whose old group
#: has a 10 x baseline hazard, against the true curves: a score that leaves out the baseline 0.54
#: in the cell (old, young), pure noise 0.47-0.58, a score that ranks every young person above every
#: old one 0.0.
REFUSED_AGREEMENT = 0.75


def reference_agreement(
    risk: np.ndarray,
    codes: np.ndarray,
    n_groups: int,
    reference_risk: np.ndarray,
    tied_tol: float,
) -> np.ndarray:
    """(G, G) agreement of the score with the reference's risk, rows a = the group of the member
    the reference puts at higher risk; NaN where a cell has no pair untied in both."""
    # dense ranks of the reference's risk, highest risk first, as "event times" of a naive pass:
    # a pair is comparable when the reference's risks differ, concordant when the score agrees
    _, rank = np.unique(-np.asarray(reference_risk, dtype=float), return_inverse=True)
    prepared = prepare_pairs(
        rank.astype(float),
        np.ones(rank.shape[0], dtype=bool),
        codes,
        np.asarray(risk, dtype=float),
        n_groups,
        tied_tol,
    )
    counts, _ = count_pairs(prepared, PairOptions())
    untied = counts.comparable - counts.tied_risk
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(untied > 0, counts.concordant / np.where(untied > 0, untied, 1), np.nan)


def check_reference_agreement(agreement: np.ndarray, groups: tuple, what: str) -> None:
    """Refuse a reference whose predictions the score does not follow (agreement below
    :data:`REFUSED_AGREEMENT` in a cell), naming the cell and the remedy."""
    low = np.where(np.isfinite(agreement), agreement, np.inf)
    if not (low < REFUSED_AGREEMENT).any():
        return
    a, b = np.unravel_index(int(np.argmin(low)), low.shape)
    raise InvalidParameterError(
        f"risk does not rank people as the reference's predictions ({what}) do: in cell "
        f"({groups[a]}, {groups[b]}) it orders only {100 * low[a, b]:.1f}% of the pairs as their "
        f"predicted risk at tau does (below {100 * REFUSED_AGREEMENT:.0f}%). Against predictions "
        "that are not the score's own, the excess is near 0 whatever the score does, so it "
        "cannot tell what the model adds. Pass the predictions the score came from (risk=None "
        "takes the model's own scores), or the score of the model whose predictions these are.",
        parameter="risk",
    )
