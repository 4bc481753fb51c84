"""The paper's reproduction: its data loading, model selection and the script's quick mode on a small subset."""

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from data_helpers import need_data
from sklearn.model_selection import StratifiedKFold, cross_val_score

from tnt import CARTClassifier
from tnt.data.external import MissingDataError
from tnt.experiments.ensembles import matched_leaves
from tnt.experiments.paper import load_paper_data, select_by_cv
from tnt.experiments.paper_numbers import TABLE1, TABLE2

ROOT = Path(__file__).resolve().parent.parent


def run_script(script, *args, capsys):
    """``python benchmarks/SCRIPT ARGS`` in this process (its ``main``), as ``subprocess.run`` reports it.

    The runs that train start real processes; the ones that only read tables and write the report,
    or stop at their arguments, run here and save a Python start (seconds of imports) each."""
    module = runpy.run_path(str(ROOT / "benchmarks" / script), run_name=f"benchmark_{Path(script).stem}")
    capsys.readouterr()
    try:
        status = module["main"]([str(a) for a in args])
    except SystemExit as stop:  # argparse's parser.error: status 2
        status = stop.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess([script, *args], status, out, err)


def test_letter_gets_a_stratified_third_for_testing_and_subsets_keep_the_classes():
    need_data("letter")
    need_data("mnist")
    X_train, y_train, X_test, y_test = load_paper_data("letter")
    assert len(y_test) == pytest.approx(0.33 * 20000, abs=1) and len(y_train) + len(y_test) == 20000
    again = load_paper_data("letter")
    assert np.array_equal(again[1], y_train)  # the same split every time
    X_small, y_small, X_test2, _ = load_paper_data("mnist", max_train=1000)
    assert X_small.shape == (1000, 784) and X_test2.shape == (10000, 784)
    assert np.bincount(y_small).min() >= 85  # stratified: about 100 of each digit


def test_an_unknown_or_missing_paper_data_set_is_one_sentence(tmp_path):
    with pytest.raises(ValueError, match="Unknown data set 'iris'"):
        load_paper_data("iris")
    with pytest.raises(MissingDataError, match=r"nowhere/usps\.npz not found; usps\.npz is missing: no public file"):
        load_paper_data("usps", tmp_path / "nowhere")


def test_cross_validation_chooses_the_best_mean_accuracy(pendigits):
    X, y = pendigits[0][:1500], pendigits[1][:1500]
    best, scores = select_by_cv(CARTClassifier(random_state=0), "max_leaf_nodes", [4, 16, 64], X, y, n_jobs=2)
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    for leaves in (4, 16, 64):
        manual = cross_val_score(CARTClassifier(max_leaf_nodes=leaves, random_state=0), X, y, cv=folds).mean()
        assert scores.loc[leaves] == pytest.approx(manual)
    assert best == scores.idxmax()


def test_quick_mode_writes_the_tables_figures_and_report(tmp_path, capsys):
    need_data("connect_4")
    need_data("usps")
    out = tmp_path / "paper"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [
        sys.executable,
        str(ROOT / "benchmarks" / "paper.py"),
        "--quick",
        "--datasets",
        "pendigits",
        "connect_4",
        "--max-train",
        "300",
        "--out",
        str(out),
        "--n-jobs",
        "1",
    ]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    for name in ("pendigits", "connect_4"):
        for ext in ("png", "svg", "csv"):
            assert (out / f"fig4_{name}.{ext}").stat().st_size > 1000
        assert (out / f"fig4_{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    t1 = pd.read_csv(out / "table1.csv")
    assert sorted(set(zip(t1["data"], t1["model"]))) == [
        (d, m) for d in ("connect_4", "pendigits") for m in ("CART", "TnT")
    ]
    assert (t1.groupby(["data", "model"]).size() == 2).all()  # two trials in quick mode
    fig4 = pd.read_csv(out / "fig4_pendigits.csv")
    assert len(fig4) == 4 * 2  # four values of C, two seeds
    for prefix in ("tnt", "tnt_ft", "tao", "cart", "ndg"):
        assert fig4[f"{prefix}_test_acc"].between(0, 1).all()
    t2 = pd.read_csv(out / "table2.csv")
    assert set(t2["data"]) == {"connect_4"}  # ensembles: MNIST and Connect-4 only
    assert sorted(set(zip(t2["ensemble"], t2["size"]))) == sorted(k for k in TABLE2["connect_4"])
    report = (out / "README.md").read_text()
    assert "quick run" in report
    for name in ("pendigits", "connect_4"):
        assert f"fig4_{name}.png" in report
    # Every row of ours stands beside the paper's number.
    assert f"{TABLE1['pendigits']['TnT'][0]:.2f} ± {TABLE1['pendigits']['TnT'][1]:.2f}" in report
    assert report.count("| Connect-4 | ") == 2 + len(TABLE2["connect_4"])
    # The reading is generated from the tables, then the hand-written notes follow.
    assert "## Reading (generated from the tables)" in report and "Table 2, Connect-4" in report
    assert (ROOT / "benchmarks" / "paper_notes.md").read_text().strip() in report
    meta = json.loads((out / "run.json").read_text())
    assert meta["finished"] == ["connect_4", "pendigits"] and meta["settings"]["max_train"] == 300
    # Where the minutes went, part by part (Table 2 on Connect-4 only), in run.json and the report.
    assert {n: list(m) for n, m in meta["parts"].items()} == {
        "connect_4": ["Table 1", "Fig. 4", "Table 2"],
        "pendigits": ["Table 1", "Fig. 4"],
    }
    assert all(v >= 0 for m in meta["parts"].values() for v in m.values())
    assert "Minutes per data set (wall time, all cores): Connect-4 " in report and "Table 2 " in report
    # --report writes the same README again from the tables and run.json alone.
    (out / "README.md").unlink()
    again = run_script("paper.py", "--report", "--out", out, capsys=capsys)
    assert again.returncode == 0, again.stderr[-2000:]
    assert (out / "README.md").read_text() == report
    # --resume keeps what the run finished and runs only the data set added, adding up the minutes.
    # Two joblib workers here, one above: the parallel path is run once, on the one data set added
    # (its workers' start, loading the compiled code, is most of a quick run's time).
    more = [*cmd, "--resume", "--datasets", "pendigits", "connect_4", "usps", "--n-jobs", "2"]
    resumed = subprocess.run(more, env=env, capture_output=True, text=True, timeout=1800)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "pendigits: kept from the earlier run" in resumed.stderr + resumed.stdout
    t1_again = pd.read_csv(out / "table1.csv")
    assert set(t1_again["data"]) == {"pendigits", "connect_4", "usps"}
    kept = t1_again[t1_again["data"] != "usps"].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, t1)
    meta_again = json.loads((out / "run.json").read_text())
    assert meta_again["sittings"] == 2 and meta_again["minutes"] >= meta["minutes"]
    assert meta_again["parts"] == {**meta["parts"], "usps": meta_again["parts"]["usps"]}
    assert "in 2 sittings (continued with `--resume`)" in (out / "README.md").read_text()
    # Other settings cannot be resumed: one sentence, nothing rewritten.
    other = run_script("paper.py", *cmd[2:], "--max-train", "200", "--resume", capsys=capsys)
    assert other.returncode == 2 and "used other settings" in other.stderr
    assert json.loads((out / "run.json").read_text()) == meta_again
    # AdaBoost of CART at our base size and at the paper's: its table, then a section of the report.
    script = [sys.executable, str(ROOT / "benchmarks" / "paper_adaboost.py"), "--out", str(out)]
    sizes = subprocess.run(
        [*script, "--max-train", "300", "--seeds", "1", "--n-jobs", "1"], env=env, capture_output=True, text=True
    )
    assert sizes.returncode == 0, sizes.stderr[-2000:]
    table = pd.read_csv(out / "adaboost_sizes.csv")
    ours = t2[(t2["data"] == "connect_4") & (t2["ensemble"] == "AdaBoost") & (t2["size"] == 20)]["mean_splits"].mean()
    leaves = dict(zip(table["base"], table["max_leaf_nodes"]))
    assert leaves == {"ours": round(ours) + 1, "paper's": round(TABLE2["connect_4"][("AdaBoost", 20)][0] / 20) + 1}
    assert sorted(table["size"].unique()) == [5, 10, 20] and table["test_accuracy"].between(0, 1).all()
    assert run_script("paper.py", "--report", "--out", out, capsys=capsys).returncode == 0
    report = (out / "README.md").read_text()
    assert "### AdaBoost of CART at our base size and at the paper's" in report
    assert "| Connect-4 | paper's | 20 |" in report and "Connect-4: at our base size, " in report
    # A data set without Table 2 in --out: one sentence, status 2.
    none = run_script("paper_adaboost.py", *script[2:], "--datasets", "mnist", capsys=capsys)
    assert none.returncode == 2 and "has no Table 2 for mnist" in none.stderr
    # Table 2's CART ensembles by both growers: its table (in this process), then a section of the report.
    both = run_script(
        "paper_cart_trees.py", *script[2:], "--max-train", "300", "--seeds", "2", "--n-jobs", "1", capsys=capsys
    )
    assert both.returncode == 0, both.stderr[-2000:]
    growers = pd.read_csv(out / "cart_trees.csv")
    assert set(growers["cart_trees"]) == {"binned", "scikit-learn"} and set(growers["seed"]) == {0, 1}
    base = growers.groupby("ensemble")["max_leaf_nodes"].unique().map(list).to_dict()
    assert base == {kind: [leaves] for kind, leaves in matched_leaves(t2).items()}
    # the binned rows are Table 2's own (same split, seeds and sizes)
    binned = growers[growers["cart_trees"] == "binned"].set_index(["ensemble", "seed", "size"]).sort_index()
    table2 = t2[t2["ensemble"].isin(["Random Forest", "AdaBoost"]) & t2["seed"].isin([0, 1])]
    table2 = table2.set_index(["ensemble", "seed", "size"]).sort_index()
    assert binned["test_accuracy"].equals(table2["test_accuracy"])
    assert (growers["seconds"] > 0).all()
    assert run_script("paper.py", "--report", "--out", out, capsys=capsys).returncode == 0
    report = (out / "README.md").read_text()
    assert "### Table 2's CART ensembles grown by both growers" in report
    assert "| Connect-4 | AdaBoost | 20 |" in report and "Connect-4: the binned trees' test accuracy within" in report
