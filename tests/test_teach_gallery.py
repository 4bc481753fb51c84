"""The Teach page's library side: the gallery's generators, the measured splits and their sentence,
points drawn by hand, and the figures of points and regions on the unit square."""

from pathlib import Path

import numpy as np
import pytest

from tnt import CARTClassifier, TnTClassifier
from tnt.experiments.gallery import (
    NOISE,
    PROBLEMS,
    checkerboard,
    diagonal,
    make_problem,
    moons,
    rings,
    with_label_noise,
    xor,
)
from tnt.experiments.toy import corners
from tnt.reduction import reduce_model
from tnt.services.drawn_data import (
    GRID_STEP,
    MAX_POINTS,
    MIN_POINTS,
    DrawnDataError,
    add_selected,
    check_points,
    drawing_grid,
    drawn_data,
)
from tnt.services.split_counts import SplitCounts, measure_splits, splits_sentence
from tnt.viz.drawing_board import points_figure
from tnt.viz.regions import decision_regions, regions_figure


@pytest.mark.parametrize("problem_id", list(PROBLEMS))
def test_every_problem_is_seeded_two_class_data_in_the_unit_square(problem_id):
    X, y = make_problem(problem_id, n=600, seed=3)
    again_X, again_y = make_problem(problem_id, n=600, seed=3)
    other_X, _ = make_problem(problem_id, n=600, seed=4)
    assert X.shape == (600, 2) and y.shape == (600,) and y.dtype.kind == "i"
    assert np.array_equal(X, again_X) and np.array_equal(y, again_y)
    assert not np.array_equal(X, other_X)
    assert X.min() >= 0.0 and X.max() <= 1.0
    assert set(y.tolist()) == {0, 1}
    assert 0.15 < y.mean() < 0.85  # both classes well represented
    assert PROBLEMS[problem_id].shows.endswith(".") and PROBLEMS[problem_id].name


def test_the_labels_follow_each_problems_rule():
    X, y = checkerboard(n=800, cells=4, seed=0)
    column, row = np.floor(X * 4).astype(int).T
    assert np.array_equal(y, (column + row) % 2)
    X, y = xor(n=800, seed=0)
    assert np.array_equal(y, ((X[:, 0] > 0.5) != (X[:, 1] > 0.5)).astype(int))
    X, y = diagonal(n=800, seed=0)
    assert np.array_equal(y, (X[:, 1] > X[:, 0]).astype(int))
    X, y = rings(n=800, seed=0)
    radius = np.hypot(*(X - 0.5).T)
    assert set(y[radius < 0.15].tolist()) == {0} and set(y[(radius > 0.15) & (radius < 0.3)].tolist()) == {1}
    assert set(y[(radius > 0.3) & (radius < 0.45)].tolist()) == {0}
    X, y = moons(n=400, seed=0)
    assert X.min(axis=0).tolist() == [0.0, 0.0] and X.max(axis=0).tolist() == [1.0, 1.0]
    assert y.sum() == 200  # make_moons: half in each moon
    assert np.array_equal(make_problem("corners", n=300, seed=2)[1], corners(n=300, seed=2)[1])


def test_the_noisy_copy_changes_exactly_its_share_of_labels_into_other_classes():
    X, y = make_problem("rings", n=1000, seed=5)
    noisy_X, noisy_y = make_problem("rings", n=1000, seed=5, noisy=True)
    assert np.array_equal(X, noisy_X)
    assert (noisy_y != y).sum() == round(NOISE * 1000)
    three = np.arange(300) % 3
    changed = with_label_noise(three, 0.5, seed=1)
    moved = changed != three
    assert moved.sum() == 150 and set(changed.tolist()) == {0, 1, 2}
    assert np.array_equal(with_label_noise(three, 0.0), three)


def test_bad_noise_and_unknown_problems_say_what_is_wrong():
    with pytest.raises(ValueError, match="between 0 and 1, got 1.5"):
        with_label_noise([0, 1], 1.5)
    with pytest.raises(ValueError, match="at least two classes"):
        with_label_noise([0, 0, 0])
    with pytest.raises(ValueError, match="Unknown problem 'spiral'; choose one of corners, xor"):
        make_problem("spiral")


def fewest_cart_splits(X, y, right, seed=0):
    """The fewest splits of a best-first CART right on at least ``right`` samples, by brute force."""
    for splits in range(1, len(y)):
        cart = CARTClassifier.with_splits(splits, random_state=seed).fit(X, y)
        if np.sum(cart.predict(X) == y) >= right:
            return cart.n_splits_


@pytest.mark.parametrize("problem_id", ["corners", "checkerboard", "diagonal"])
def test_the_measured_splits_are_those_of_the_models(problem_id):
    X, y = make_problem(problem_id, n=1000, seed=1)
    counts = measure_splits(X, y, C=1e-2, seed=1)
    tnt = TnTClassifier(C=1e-2, random_state=1).fit(X, y)
    assert counts.tnt_splits == tnt.n_splits_ > 0
    assert counts.reduced_splits == reduce_model(tnt, X, y).n_splits_
    right = np.sum(tnt.predict(X) == y)
    assert counts.tnt_accuracy == right / len(y)
    assert counts.cart_splits == fewest_cart_splits(X, y, right, seed=1)
    assert counts.cart_accuracy >= counts.tnt_accuracy
    cart = CARTClassifier.with_splits(counts.cart_splits - 1, random_state=1).fit(X, y)
    assert counts.cart_splits == 1 or np.sum(cart.predict(X) == y) < right  # one split fewer is not enough


def test_on_the_checkerboard_the_graph_is_smaller_than_the_tree():
    """The claim of the Teach guide: repeated structure, shared by graph reduction."""
    X, y = make_problem("checkerboard", seed=0)
    counts = measure_splits(X, y, C=1e-2, seed=0)
    assert counts.reduced_splits < counts.tnt_splits < counts.cart_splits
    assert counts.tnt_accuracy == 1.0


def test_when_tnt_keeps_no_split_the_sentence_says_it_found_nothing():
    X, y = make_problem("xor", seed=0)
    counts = measure_splits(X, y, C=0.1, seed=0)
    assert TnTClassifier(C=0.1, random_state=0).fit(X, y).n_splits_ == 0 == counts.tnt_splits
    assert counts.cart_splits == 0 and counts.cart_accuracy == counts.tnt_accuracy == max(y.mean(), 1 - y.mean())
    sentence = splits_sentence(counts)
    assert sentence.startswith("Measured at C=0.1: TnT finds nothing: it keeps no split")
    assert f"(training accuracy {counts.tnt_accuracy:.3f})" in sentence and "CART" not in sentence


def test_the_sentence_reports_every_count():
    assert splits_sentence(SplitCounts(15, 11, 1.0, 24, 1.0, 0.01)) == (
        "Measured at C=0.01: TnT uses 15 splits (training accuracy 1.000), 11 after graph reduction; "
        "CART needs 24 splits to do as well (1.000)."
    )
    assert splits_sentence(SplitCounts(1, 1, 0.9, 1, 0.95, 0.002)) == (
        "Measured at C=0.002: TnT uses 1 split (training accuracy 0.900), graph reduction saves no split; "
        "CART needs 1 split to do as well (0.950)."
    )
    assert splits_sentence(SplitCounts(3, 3, 0.9, 7, 0.85, 0.01)).endswith(
        "CART reaches only 0.850 even with 7 splits."
    )


def test_the_drawing_grid_covers_the_unit_square_at_its_step():
    x, y = drawing_grid()
    n = round(1 / GRID_STEP) + 1
    assert x.shape == y.shape == (n * n,)
    assert sorted(set(x.tolist())) == sorted(set(y.tolist())) == pytest.approx(np.linspace(0, 1, n).tolist())
    assert len(set(zip(x.tolist(), y.tolist()))) == n * n


def test_selected_points_become_drawn_points_of_the_chosen_class():
    selected = [{"x": 0.25, "y": 0.5, "curve_number": 0}, {"x": 0.75, "y": 1.0}]
    points = add_selected([[0.1, 0.1, 0]], selected, 2)
    assert points == [[0.1, 0.1, 0], [0.25, 0.5, 2], [0.75, 1.0, 2]]
    # Outside the square, not a number, or past the limit: left out.
    assert add_selected([], [{"x": 1.5, "y": 0.5}, {"x": "a", "y": 0.1}, {"y": 0.2}], 0) == []
    full = [[0.5, 0.5, 0]] * MAX_POINTS
    assert len(add_selected(full, selected, 1)) == MAX_POINTS


def test_drawn_points_that_cannot_be_trained_on_get_one_sentence():
    with pytest.raises(DrawnDataError, match=rf"^Draw at least {MIN_POINTS} points to train on \(there are 2\)"):
        drawn_data([[0.1, 0.1, 0], [0.9, 0.9, 1]])
    with pytest.raises(DrawnDataError, match=r"there is 1\)"):
        drawn_data([[0.1, 0.1, 0]])
    with pytest.raises(DrawnDataError, match="^All 7 points are of class 1: add points of another class, then train.$"):
        drawn_data([[0.1 * i, 0.5, 1] for i in range(7)])
    X, y = drawn_data([[i / 8, 0.25, i % 3] for i in range(6)])
    assert X.tolist() == [[i / 8, 0.25] for i in range(6)] and y.tolist() == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize(
    "bad",
    [
        {"a": 1},
        [[0.1, 0.2]],
        [[0.1, 0.2, 3]],
        [[0.1, -0.2, 0]],
        [[0.1, 0.2, 1.0]],
        [["x", 0.2, 0]],
        [[0.5, 0.5, 0]] * (MAX_POINTS + 1),
    ],
)
def test_a_damaged_saved_list_of_points_is_refused(bad):
    with pytest.raises(ValueError, match="Drawn point|Drawn points must be a list"):
        check_points(bad)


def test_the_board_has_an_invisible_grid_under_the_drawn_points():
    grid = drawing_grid(0.25)
    fig = points_figure([[0.1, 0.2], [0.5, 0.5], [0.7, 0.9]], [0, 2, 2], n_classes=3, grid=grid)
    assert [t.name for t in fig.data] == ["grid", "class 0", "class 1", "class 2"]
    assert fig.data[0].marker.color == "rgba(0,0,0,0)" and len(fig.data[0].x) == 25
    assert fig.data[0].hoverinfo == "none"  # clickable, no tooltip; "skip" would make it unclickable
    assert tuple(fig.data[3].x) == (0.5, 0.7) and len(fig.data[2].x) == 0
    assert len({t.marker.color for t in fig.data[1:]}) == 3
    assert all(t.hoverinfo == "skip" for t in fig.data[1:])  # a click on a drawn point reaches the grid
    plain = points_figure(*make_problem("xor", n=50), height=200)
    assert [t.name for t in plain.data] == ["class 0", "class 1"] and plain.layout.height == 200


def test_regions_can_cover_a_given_rectangle():
    X, y = drawn_data([[0.4, 0.4, 0], [0.45, 0.5, 0], [0.5, 0.45, 0], [0.6, 0.6, 1], [0.55, 0.6, 1], [0.6, 0.55, 1]])
    cart = CARTClassifier(max_leaf_nodes=2).fit(X, y)
    xs, ys, z = decision_regions(cart, X, resolution=11, bounds=((0, 1), (0, 1)))
    assert xs[0] == ys[0] == 0 and xs[-1] == ys[-1] == 1
    assert z[0, 0] == 0 and z[-1, -1] == 1
    fig = regions_figure(cart, X, y, resolution=11, bounds=((0, 1), (0, 1)))
    assert list(fig.layout.xaxis.range) == [0, 1]


def test_the_teach_guide_quotes_the_measured_splits():
    page = (Path(__file__).resolve().parent.parent / "docs" / "guide" / "teach.md").read_text()
    names = {problem.name: problem_id for problem_id, problem in PROBLEMS.items()}
    rows = [
        line.split("|")[1:-1]
        for line in page.splitlines()
        if line.split("|")[1:2] and line.split("|")[1].strip() in names
    ]
    quoted = {(names[r[0].strip()], r[1].strip()): [c.strip() for c in r[2:]] for r in rows if len(r) == 7}
    assert len(quoted) == 2 * len(PROBLEMS)
    for (problem_id, data), row in quoted.items():
        m = measure_splits(*make_problem(problem_id, seed=0, noisy=data == "noisy"), C=1e-2, seed=0)
        measured = [m.tnt_splits, m.reduced_splits, f"{m.tnt_accuracy:.3f}", m.cart_splits, f"{m.cart_accuracy:.3f}"]
        assert row == [str(v) for v in measured], (problem_id, data)
