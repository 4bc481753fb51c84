"""The external data sets in tests: a set's path, or a skip of one line that says how to get it.

With ``TNT_REQUIRE_DATA=1`` (CI's ``.ci/run`` sets it) a missing set fails the test instead, so that
a run which should have every set never passes by skipping the tests that need one.
"""

import os

import pytest

from tnt.data.external import MissingDataError, find_data

#: Environment variable that turns a missing data set from a skip into a failure.
ENV_REQUIRE = "TNT_REQUIRE_DATA"


def need_data(name):
    """The path of the external data set ``name`` (``tnt.data.external``), or skip (fail) saying how to get it."""
    __tracebackhide__ = True  # the skip's reported place is the test's line that asked for the set
    try:
        return find_data(name)
    except MissingDataError as error:
        if os.environ.get(ENV_REQUIRE) == "1":
            pytest.fail(f"{error} ({ENV_REQUIRE}=1 requires every data set)", pytrace=False)
        pytest.skip(str(error))
