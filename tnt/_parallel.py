"""``n_jobs`` as scikit-learn means it: the one place where the project reads that parameter.

``None`` is 1; a positive number asks for that many workers; ``-1`` is every core this process may
use, ``-2`` all but one, and so on (``cores + 1 + n_jobs``, at least 1), as in joblib; 0 asks for no
worker at all and is refused. "The cores this process may use" is joblib's ``cpu_count()``: the
machine's cores narrowed by the process's CPU affinity (``os.sched_getaffinity``), a container's
CPU quota (cgroups) and the ``LOKY_MAX_CPU_COUNT`` environment variable.
"""

from __future__ import annotations

from numbers import Integral

__all__ = ["check_n_jobs", "effective_n_jobs", "n_jobs_constraint", "usable_cores"]


def n_jobs_constraint() -> list:
    """``n_jobs`` in an estimator's ``_parameter_constraints``: any whole number but 0, or None.

    A function, so that the app's warm-up, which reads :func:`usable_cores` before anything else
    is imported, does not import scikit-learn.
    """
    from sklearn.utils._param_validation import Interval

    return [Interval(Integral, None, -1, closed="right"), Interval(Integral, 1, None, closed="left"), None]


def usable_cores() -> int:
    """Number of cores this process may use (at least 1): affinity and container limits respected.

    Examples
    --------
    >>> from tnt._parallel import usable_cores
    >>> usable_cores() >= 1
    True
    """
    from joblib import cpu_count

    return int(cpu_count())


def check_n_jobs(n_jobs) -> None:
    """Refuse an ``n_jobs`` that is not None or a whole number other than 0, with one sentence.

    For functions that hand ``n_jobs`` to joblib, which reads ``-1`` itself (on a Dask cluster,
    every worker of the cluster); estimators check it through :func:`n_jobs_constraint`.

    Examples
    --------
    >>> from tnt._parallel import check_n_jobs
    >>> check_n_jobs(0)
    Traceback (most recent call last):
    ...
    ValueError: n_jobs=0 asks for no worker at all: use None or 1 for one, -1 for every core this process may use.
    """
    if n_jobs is None:
        return
    if not isinstance(n_jobs, Integral) or isinstance(n_jobs, bool):
        raise ValueError(f"n_jobs must be a whole number or None; got {n_jobs!r}.")
    if n_jobs == 0:
        raise ValueError(
            "n_jobs=0 asks for no worker at all: use None or 1 for one, -1 for every core this process may use."
        )


def effective_n_jobs(n_jobs) -> int:
    """The number of workers ``n_jobs`` means here, from 1 to :func:`usable_cores`.

    Parameters
    ----------
    n_jobs : int or None
        ``None`` is 1; ``-1`` every usable core, ``-2`` all but one (``cores + 1 + n_jobs``, at
        least 1); a positive number at most the usable cores (more threads than cores would only
        take turns).

    Returns
    -------
    n_workers : int

    Raises
    ------
    ValueError
        For 0, or anything but a whole number or None.

    Examples
    --------
    >>> from tnt._parallel import effective_n_jobs, usable_cores
    >>> effective_n_jobs(None), effective_n_jobs(1)
    (1, 1)
    >>> effective_n_jobs(-1) == usable_cores()
    True
    """
    check_n_jobs(n_jobs)
    if n_jobs is None:
        return 1
    cores = usable_cores()
    n_jobs = int(n_jobs)
    return max(1, min(cores, n_jobs if n_jobs > 0 else cores + 1 + n_jobs))
