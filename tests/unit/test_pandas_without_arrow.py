"""pandas imported without pyarrow in a ``gridmarket run`` process that writes no Parquet
(market/cli/startup.py, market/cli/memory.py): checked in fresh processes, as it must come before
pandas is imported. The run's tables and files are the same; pyarrow stays importable; a run that
writes Parquet keeps it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pandas as pd

from market.cli.main import may_use_parquet
from tests.conftest import ROOT

ENV = {"PYTHONPATH": str(ROOT), "PATH": ""}
SCRIPT = "import sys; from market.cli.main import main; sys.exit(main())"  # (as the console's)


def test_pandas_runs_as_without_pyarrow_which_stays_importable():
    code = (
        "import json, sys\n"
        "from market.cli.startup import pandas_without_arrow\n"
        "first = pandas_without_arrow()\n"
        "loaded = 'pyarrow' in sys.modules\n"
        "import pandas as pd\n"
        "from pandas.compat import HAS_PYARROW\n"
        "pd.set_option('mode.string_storage', 'python')\n"
        "text = pd.DataFrame({'a': ['x', 'y']}).a.str.upper().to_csv(index=False)\n"
        "again = pandas_without_arrow()\n"
        "import pyarrow\n"
        "print(json.dumps([first, loaded, HAS_PYARROW, text, again, pyarrow.__name__]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV, cwd=ROOT
    )
    out = json.loads(done.stdout.splitlines()[-1])
    assert out == [True, False, False, "a\nX\nY\n", False, "pyarrow"]


def parsed(*argv: str) -> argparse.Namespace:
    from market.cli.main import _parser

    return _parser().parse_args(list(argv))


def test_only_a_run_that_writes_no_parquet_goes_without_pyarrow():
    assert may_use_parquet(parsed("run", "profit/default")) is False
    assert may_use_parquet(parsed("run", "profit/default", "--jobs-out", "j.csv")) is False
    assert may_use_parquet(parsed("run", "profit/default", "--market-out", "m.json")) is False
    assert may_use_parquet(parsed("run", "profit/default", "--jobs-out", "j.PARQUET")) is True
    assert may_use_parquet(parsed("run", "profit/default", "--market-out", "m.parquet")) is True
    assert may_use_parquet(parsed("sweep", "profit/default", "--out", "x")) is True


def run(tmp_path, *options: str) -> subprocess.CompletedProcess:
    """``gridmarket run profit/default`` as the console script runs it, with import times."""
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-c", SCRIPT, "run", "profit/default", *options],
        capture_output=True,
        text=True,
        check=True,
        env=ENV,
        cwd=tmp_path,
    )


def imported(done: subprocess.CompletedProcess) -> set[str]:
    """The modules the process imported (``-X importtime`` also lists an import that failed, as
    pandas' of pyarrow does where it is hidden: pyarrow's own code is in ``pyarrow.lib``)."""
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines()}


def test_a_run_without_parquet_never_loads_pyarrow_and_one_with_it_writes_the_same_tables(tmp_path):
    plain = run(tmp_path, "--market-out", "m.csv", "--jobs-out", "j.csv")
    assert "pyarrow.lib" not in imported(plain) and "pandas" in imported(plain)
    parquet = run(tmp_path, "--market-out", "m.parquet", "--jobs-out", "j.parquet")
    assert "pyarrow.lib" in imported(parquet)
    assert plain.stdout == parquet.stdout  # the printed tables
    for name in ("m", "j"):
        csv, table = (
            pd.read_csv(tmp_path / f"{name}.csv"),
            pd.read_parquet(tmp_path / f"{name}.parquet"),
        )
        assert len(table) > 0 and list(table.columns) == list(csv.columns)
        pd.testing.assert_frame_equal(
            table.astype(str).reset_index(drop=True), csv.astype(str), check_dtype=False
        )
