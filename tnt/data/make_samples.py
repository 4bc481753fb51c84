"""Write the app's bundled data sets as CSV files (run from anywhere; deterministic).

    python -m tnt.data.make_samples

Each CSV has one row per sample, the features first and the class in the column named in
``catalog.json``; pendigits keeps its official train/test split in a ``split`` column.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

HERE = Path(__file__).resolve().parent / "bundled"


def corners(n: int = 2000, width: float = 0.25, seed: int = 0) -> pd.DataFrame:
    """The paper's toy problem (Fig. 2): uniform points in the unit square, class 1 in the four
    corners (squares of side ``width``), class 0 elsewhere."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0.0, 1.0, size=(n, 2))
    near = lambda v: (v < width) | (v > 1.0 - width)  # noqa: E731
    label = (near(xy[:, 0]) & near(xy[:, 1])).astype(int)
    return pd.DataFrame({"x1": xy[:, 0].round(4), "x2": xy[:, 1].round(4), "class": label})


def from_sklearn(loader, target="class", rename_classes=True) -> pd.DataFrame:
    bunch = loader()
    df = pd.DataFrame(bunch.data, columns=[str(c) for c in bunch.feature_names])
    labels = bunch.target_names[bunch.target] if rename_classes else bunch.target
    df[target] = labels
    return df


def pendigits() -> pd.DataFrame:
    with np.load(HERE / "pendigits.npz", allow_pickle=False) as d:
        parts = []
        for split in ("train", "test"):
            df = pd.DataFrame(d[f"X_{split}"].astype(int), columns=[f"{xy}{i}" for i in range(1, 9) for xy in "xy"])
            df["digit"] = d[f"y_{split}"]
            df["split"] = split
            parts.append(df)
    return pd.concat(parts, ignore_index=True)


def main() -> None:
    frames = {
        "corners": corners(),
        "iris": from_sklearn(load_iris, target="species"),
        "wine": from_sklearn(load_wine, target="cultivar"),
        "breast_cancer": from_sklearn(load_breast_cancer, target="diagnosis"),
        "digits": from_sklearn(load_digits, target="digit", rename_classes=False),
        "pendigits": pendigits(),
    }
    for name, df in frames.items():
        df.to_csv(HERE / f"{name}.csv", index=False, float_format="%.6g")
        print(f"{name}.csv: {df.shape[0]} rows, {df.shape[1]} columns")


if __name__ == "__main__":
    main()
