"""The Streamlit server's safe defaults in .streamlit/config.toml, and the documentation page about them."""

import tomllib
from pathlib import Path

import pytest

from tnt.data.csv_loader import Limits
from tnt.model_io import MAX_BYTES

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".streamlit" / "config.toml"


@pytest.fixture(scope="module")
def config():
    with open(CONFIG, "rb") as file:
        return tomllib.load(file)


@pytest.mark.parametrize(
    "section, key, expected",
    [
        ("server", "address", "127.0.0.1"),  # reachable from this machine only
        ("server", "maxUploadSize", 50),  # megabytes
        ("server", "enableXsrfProtection", True),
        ("server", "enableCORS", True),
        ("browser", "gatherUsageStats", False),
        ("client", "showErrorDetails", "type"),  # no stack trace in the browser
    ],
)
def test_safe_server_setting(config, section, key, expected):
    assert config[section][key] == expected


def test_every_setting_is_one_streamlit_knows(config):
    # A misspelt option would be ignored silently and leave Streamlit's unsafe default in place.
    from streamlit import config as streamlit_config

    known = streamlit_config._config_options_template
    names = [f"{section}.{key}" for section, options in config.items() for key in options]
    assert names and [name for name in names if name not in known] == []


def test_upload_limit_admits_the_largest_model_file_and_csv(config):
    # Streamlit counts megabytes of 2**20 bytes; a CSV file above the loader's own limit but below
    # Streamlit's gets the loader's plain sentence.
    assert config["server"]["maxUploadSize"] * 2**20 >= max(MAX_BYTES, Limits().max_bytes)


def test_the_documentation_states_the_limits(config):
    section = (ROOT / "docs" / "security.md").read_text()
    for phrase in (
        "127.0.0.1",
        f"{config['server']['maxUploadSize']} MB",
        "XSRF",
        "usage statistics",
        "pickle",
        "formula",
        "float32",
        "--drop-missing",
        "tests/bad_csv/",
        "session",
    ):
        assert phrase in section, phrase
