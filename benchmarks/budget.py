"""What training to a budget costs and how close it gets: :func:`tnt.services.budget.fit_to_budget`
on pendigits and the digits for a few budgets.

Run from the repository root:

    .venv/bin/python benchmarks/budget.py [--out benchmarks/budget_results.md]

For each data set and budget N it reports the splits found (and how far below N), the C found, the
number of fits, the search's time and the time of one plain fit at the C found (the same run, so
the ratio is the figure to read), and TnT's and CART's test accuracy at the same splits. It writes
its table to ``--out`` (a Markdown file of its own) and prints it.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tnt import TnTClassifier  # noqa: E402
from tnt.data.datasets import load_bundled  # noqa: E402
from tnt.services.budget import fit_to_budget  # noqa: E402

BUDGETS = {"pendigits": (20, 50, 100, 200, 300), "digits": (20, 50, 100, 200)}


def run(dataset_id: str, budgets) -> list[dict]:
    data = load_bundled(dataset_id, test_size=0.3, seed=0)
    rows = []
    for N in budgets:
        start = time.perf_counter()
        found = fit_to_budget(data.X_train, data.y_train, N, random_state=0)
        search = time.perf_counter() - start
        start = time.perf_counter()
        TnTClassifier(C=found.C, random_state=0).fit(data.X_train, data.y_train)
        one = time.perf_counter() - start
        rows.append(
            {
                "data": data.name,
                "N": N,
                "splits": found.n_splits,
                "gap": N - found.n_splits,
                "bracketed": found.bracketed,
                "C": found.C,
                "fits": found.n_fits,
                "search_s": search,
                "one_fit_s": one,
                "tnt_test": found.model.score(data.X_test, data.y_test),
                "cart_test": found.cart.score(data.X_test, data.y_test),
            }
        )
        print(rows[-1], flush=True)
    return rows


def table(rows) -> str:
    lines = [
        "| data | budget N | splits found (N - splits) | C found | fits | search time | one fit at that C | "
        "TnT test | CART test (same splits) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['data']} | {r['N']} | {r['splits']} ({r['gap']}{'' if r['bracketed'] else ': the most TnT uses'}) "
            f"| {r['C']:.3g} | {r['fits']} | "
            f"{r['search_s']:.1f} s | {r['one_fit_s']:.2f} s | {r['tnt_test']:.3f} | {r['cart_test']:.3f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "budget_results.md")
    args = parser.parse_args()
    rows = [row for dataset_id, budgets in BUDGETS.items() for row in run(dataset_id, budgets)]
    gaps = [r["gap"] for r in rows if r["bracketed"]]  # the others: N is more than TnT uses at any C
    fits = [r["fits"] for r in rows]
    header = (
        f"# Training to a budget\n\nRun: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, "
        f"{platform.system()} {platform.machine()}, Python {platform.python_version()}; "
        "`fit_to_budget(X, y, N, random_state=0)` with its defaults (N1=2, N2=5, search from C=1e-3); "
        "search time against one plain fit at the C found, in the same run; "
        "30% of each data set held out.\n\n"
        f"Splits below the budget, where some C gives more than N: {min(gaps)} to {max(gaps)} "
        f"(median {np.median(gaps):g}); "
        f"fits: {min(fits)} to {max(fits)} (median {np.median(fits):g}).\n\n"
    )
    text = header + table(rows) + "\n"
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
