"""survfair's compiled kernels (Cython, built ahead of time by the package's build).

``_kaplan_meier`` serves :mod:`survfair._censoring` (the censoring Kaplan-Meier sweep and step
lookups), ``_pairs`` :mod:`survfair._kernel` (the preparation sweeps and the column passes that
count pairs and gather each row's contributions), ``_influence`` :mod:`survfair._influence` (the
sweep that turns contributions into influence rows). They take validated, contiguous arrays from
those modules and nothing else imports them. ``n_jobs`` reaches them as an OpenMP thread count.
"""
