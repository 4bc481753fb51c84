"""Smoke test of a non-editable install (`pip install '.[app]'`), run by .ci/run with that install's Python.

Run from a temporary folder holding copies of app.py, app_pages/ and ui/ but no tnt/, so that the
library, its bundled data and the command line come from site-packages alone.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

with tempfile.TemporaryDirectory() as folder:
    work = Path(folder)
    shutil.copy(REPO / "app.py", work)
    shutil.copytree(REPO / "app_pages", work / "app_pages")
    shutil.copytree(REPO / "ui", work / "ui")
    shutil.copytree(REPO / ".streamlit", work / ".streamlit")
    sys.path.insert(0, str(work))

    import tnt
    from tnt.data.datasets import catalog, load_bundled

    assert "site-packages" in tnt.__file__, tnt.__file__
    data = load_bundled("digits")
    model = tnt.TnTClassifier(C=1e-2, random_state=0).fit(data.X_train, data.y_train)
    assert model.score(data.X_test, data.y_test) > 0.6
    # `pip install` compiled the kernels (setup.py): the first fit and prediction load them all
    # from the installed package's cache and compile none.
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import tnt.learn

    kernels = [
        f
        for info in pkgutil.iter_modules(tnt.learn.__path__)
        for f in vars(importlib.import_module(f"tnt.learn.{info.name}")).values()
        if isinstance(f, CPUDispatcher)
    ]
    compiled = sorted({f.py_func.__name__ for f in kernels if sum(f.stats.cache_misses.values())})
    loaded = sum(sum(f.stats.cache_hits.values()) for f in kernels)
    assert not compiled and loaded > 10, f"compiled after install: {compiled}; loaded from the cache: {loaded}"
    assert all("site-packages" in f.stats.cache_path for f in kernels if f.stats.cache_hits), "cache not installed"
    assert len(catalog()) >= 6

    cli = Path(sys.executable).parent / "tnt"
    iris = Path(tnt.__file__).parent / "data" / "bundled" / "iris.csv"
    out = subprocess.run(
        [str(cli), "train", str(iris), "--target", "species", "-o", str(work / "m.json")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0 and (work / "m.json").exists(), out.stderr
    # The external data sets' catalog is installed too: `tnt data list` finds the bundled pendigits.
    listed = subprocess.run([str(cli), "data", "list"], capture_output=True, text=True)
    bundled = Path(tnt.__file__).parent / "data" / "bundled" / "pendigits.npz"
    assert listed.returncode == 0, listed.stderr
    assert ["pendigits", str(bundled)] in [line.split() for line in listed.stdout.splitlines()], listed.stdout

    from streamlit.testing.v1 import AppTest

    os.environ["TNT_WORKSPACE_DIR"] = str(work / "workspaces")  # the app's store, not the CI user's home

    app = AppTest.from_file(str(work / "app.py"), default_timeout=300).run()
    assert not app.exception, app.exception
    assert app.dataframe, "the Data page shows no table"
    from tnt import warmup

    # The app's background compiling process is not needed past this point (CI time): stop it
    # rather than wait minutes for kernels this throwaway install never uses again.
    process = warmup.start_in_background()
    process.kill()
    process.wait()
    print(
        f"non-editable install: tnt {tnt.__version__} from {Path(tnt.__file__).parent}, app and command line work;"
        f" the first fit loaded {loaded} compiled kernels from the install's cache and compiled none"
    )
