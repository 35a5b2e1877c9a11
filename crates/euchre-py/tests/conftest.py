"""Paths the tests share: the repository's vendored real game records."""

from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[3]
RECORDS = REPOSITORY / "crates" / "euchre-game" / "tests" / "egn"


@pytest.fixture
def record_text():
    """The text of a vendored, annotated real game."""
    return (RECORDS / "VWEC_Finals_Annotated.egn").read_text()
