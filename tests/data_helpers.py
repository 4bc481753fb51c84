"""The external data sets in tests: a set's path, or a skip of one line that says how to get it.

With ``TNT_REQUIRE_DATA=1`` (CI's ``.ci/run`` sets it) a missing set fails the test instead, so that
a run which should have every set never passes by skipping the tests that need one; except the
tables that a package of the optional ``bench`` extra ships (``tables/``), which CI does not
install: those skip with their sentence either way.
"""

import os

import pytest

from tnt.data.external import MissingDataError, external_set, find_data

#: Environment variable that turns a missing data set from a skip into a failure.
ENV_REQUIRE = "TNT_REQUIRE_DATA"


def need_data(name):
    """The path of the external data set ``name`` (``tnt.data.external``), or skip (fail) saying how to get it."""
    __tracebackhide__ = True  # the skip's reported place is the test's line that asked for the set
    try:
        return find_data(name)
    except MissingDataError as error:
        # A table that a package of the `bench` extra ships is optional: CI does not install it.
        if os.environ.get(ENV_REQUIRE) == "1" and not external_set(name).package:
            pytest.fail(f"{error} ({ENV_REQUIRE}=1 requires every data set)", pytrace=False)
        pytest.skip(str(error))
