"""The five-minute example of docs/python.md runs as written."""

import contextlib
import io
import re

from conftest import REPOSITORY


def test_the_five_minute_example_runs_as_written():
    text = (REPOSITORY / "docs" / "python.md").read_text()
    section = text.split("## Five minutes", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 1, "one Python block in the five-minute section"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(blocks[0], "docs/python.md", "exec"), {})
    lines = printed.getvalue().splitlines()
    assert re.fullmatch(r"[+-]\d\.\d{3} ± \d\.\d{3} points a hand", lines[0]), lines
    assert re.fullmatch(r"won \d+\.\d% ± \d+\.\d% of 200 games to 10", lines[1]), lines
    net = float(lines[0].split()[0])
    assert net == -0.893, "the doc quotes seed 1's figure"
