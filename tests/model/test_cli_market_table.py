"""``gridmarket run`` prints the market table (RunResult.market) after the provider table where
the run is a market (market/results/outputs.py), and ``--market-out`` writes it for scripts."""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
from unittest import mock

import pandas as pd
import pytest

from market.cli.main import main
from market.inputs.scenario import load
from market.results.outputs import market_columns, market_shown
from market.sim.model import GridMarket
from tests.conftest import DEFAULT_SCENARIO, ROOT
from tests.tables import parse_tables

COMPETITION = ROOT / "scenarios" / "market" / "competition.yaml"
SMALL = ["--set", "clients.0.workload.jobs=20"]


def printed(*argv: str, width: int = 250) -> str:
    """What ``gridmarket run ARGV`` prints on a terminal ``width`` columns wide."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), mock.patch.dict(os.environ, {"COLUMNS": str(width)}):
        assert main(["run", *argv]) == 0
    return out.getvalue()


def tables(out: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """The tables in ``out``: (title, headers, rows), cells stripped."""
    return [(title, headers, rows) for title, headers, rows, _ in parse_tables(out)]


@pytest.fixture(scope="module")
def competition() -> tuple[str, pd.DataFrame]:
    """The CLI's output for market/competition and the market table of the same run."""
    out = printed(str(COMPETITION))
    ((_, variant),) = load(COMPETITION).expand(str(COMPETITION))
    return out, GridMarket(variant, seed=1).run().market.set_index("name")


def market_rows(out: str) -> dict[str, dict[str, str]]:
    ((title, headers, rows),) = [t for t in tables(out) if t[0].startswith("market (")]
    assert title == "market (seed 1)"
    return {row[1]: dict(zip(headers, row, strict=True)) for row in rows}


def number(text: str) -> float:
    return float(text.replace(",", ""))


def test_the_competition_prints_a_row_per_agent_and_the_market(competition):
    out, market = competition
    assert [t[0] for t in tables(out)] == [
        "market-competition (seed 1) · admission positive_opportunity",
        "market (seed 1)",
    ]
    rows = market_rows(out)
    assert {name: row["kind"] for name, row in rows.items()} == {
        "plus": "provider", "opp": "provider", "urgent": "provider",
        "clients": "client", "cheap": "pool", "dear": "pool",
        "all": "market",
    }  # fmt: skip
    client = market.loc["clients"]
    for header in ("submitted", "placed", "declined", "rejected"):  # counts, no decimals
        assert rows["clients"][header] == str(int(client[header]))
    assert int(client["declined"]) > 0  # the clients shop: some quotes had no surplus
    assert number(rows["clients"]["surplus"]) == round(client["surplus"])  # money: no decimals
    assert number(rows["plus"]["share %"]) == round(market.loc["plus", "market_share_pct"], 1)
    assert number(rows["cheap"]["util %"]) == round(market.loc["cheap", "utilization"], 1)
    # a resource provider's revenue is the rent it received, shown in the rent column
    assert number(rows["dear"]["rent"]) == round(market.loc["dear", "revenue"])
    assert rows["dear"]["revenue"] == "" and rows["plus"]["util %"] == ""  # not its kind's
    assert number(rows["all"]["welfare"]) == round(market.loc["market", "welfare"])


def test_the_printed_welfare_is_surplus_plus_profit_plus_rent(competition):
    rows = market_rows(competition[0])
    total = rows["all"]
    parts = [number(total[h]) for h in ("surplus", "profit", "rent")]
    assert sum(parts) == pytest.approx(number(total["welfare"]), abs=1.5)  # each rounded
    shares = [number(total[h]) for h in ("surplus %", "profit %", "rent %")]
    assert sum(shares) == pytest.approx(100.0, abs=0.15)
    # money moves between the rows: clients pay the providers, the providers pay the pools
    providers = [row for row in rows.values() if row["kind"] == "provider"]
    pools = [row for row in rows.values() if row["kind"] == "pool"]
    paid = number(rows["clients"]["paid"])
    assert sum(number(r["revenue"]) for r in providers) == pytest.approx(paid, abs=1.5)
    assert sum(number(r["profit"]) for r in providers) == pytest.approx(parts[1], abs=1.5)
    rent = sum(number(r["rent"]) for r in providers)
    assert rent == pytest.approx(parts[2], abs=1.5)
    assert sum(number(r["rent"]) for r in pools) == pytest.approx(parts[2], abs=1.5)


def test_a_single_provider_run_prints_no_market_table():
    out = printed(str(DEFAULT_SCENARIO), *SMALL)
    assert [t[0] for t in tables(out)] == ["profit-default (seed 1) · provider sp"]


def test_several_variants_of_a_market_share_one_table_with_a_variant_column(tmp_path):
    scenario = tmp_path / "two.yaml"
    text = COMPETITION.read_text(encoding="utf-8")
    scenario.write_text(
        text + "variants:\n  base: {}\n  dearer:\n    resource_providers.1.price: 6.0\n",
        encoding="utf-8",
    )
    out = printed(str(scenario), *SMALL)
    ((_, headers, rows),) = [t for t in tables(out) if t[0].startswith("market (")]
    assert headers[:3] == ["variant", "kind", "name"]
    assert [row[0] for row in rows] == ["base"] * 7 + ["dearer"] * 7
    assert [row[2] for row in rows][-1] == "all"


def test_the_rule_needs_more_than_one_agent_of_a_kind_or_a_price(tmp_path):
    def frame(kinds, **columns):
        rows = [{"kind": k, "name": f"{k}{i}"} for i, k in enumerate(kinds)]
        return pd.DataFrame(rows).assign(**columns)

    papers = ["service_provider", "client", "resource_provider", "market"]
    utility = pd.DataFrame({"pricing": ["utility"]})
    assert not market_shown(utility, frame(papers))
    assert not market_shown(utility, None)
    assert market_shown(utility, frame(["client", *papers]))  # two clients
    assert market_shown(utility, frame(["resource_provider", *papers]))  # two pools
    assert market_shown(pd.DataFrame({"pricing": ["cost_plus"]}), frame(papers))
    # a column shows only where some row has a non-zero number
    columns = market_columns(frame(papers, declined=[math.nan, 0.0, math.nan, math.nan],
                                   surplus=[math.nan, 2.0, math.nan, 3.0]))  # fmt: skip
    assert list(columns) == ["kind", "name", "surplus"]


@pytest.mark.parametrize("suffix", [".csv", ".json", ".parquet"])
def test_market_out_writes_every_variants_market_rows(tmp_path, suffix):
    target = tmp_path / f"market{suffix}"
    printed(str(DEFAULT_SCENARIO), *SMALL, "--format", "csv", "--market-out", str(target))
    if suffix == ".json":
        frame = pd.DataFrame(json.loads(target.read_text(encoding="utf-8")))
    else:
        frame = pd.read_parquet(target) if suffix == ".parquet" else pd.read_csv(target)
    variants = list(load(DEFAULT_SCENARIO).variants)
    assert list(frame.columns[:4]) == ["variant", "seed", "kind", "name"]
    assert list(frame["variant"].unique()) == variants
    assert len(frame) == 4 * len(variants)  # provider, client, pool, market
    market = frame[frame["kind"] == "market"].set_index("variant")
    provider = frame[frame["kind"] == "service_provider"].set_index("variant")
    assert market["profit"].tolist() == provider["profit"].tolist()  # exact, also in CSV


def test_market_out_json_keeps_the_run_result_exactly(tmp_path):
    target = tmp_path / "market.json"
    printed(str(DEFAULT_SCENARIO), *SMALL, "--format", "json", "--market-out", str(target))
    records = json.loads(target.read_text(encoding="utf-8"))
    variant = dict(load(DEFAULT_SCENARIO).with_overrides({"clients.0.workload.jobs": 20})
                   .expand(str(DEFAULT_SCENARIO)))["FirstProfit"]  # fmt: skip
    market = GridMarket(variant, seed=1).run().market
    welfare = market.set_index("kind").loc["market", "welfare"]
    mine = [r for r in records if r["variant"] == "FirstProfit" and r["kind"] == "market"]
    assert mine[0]["welfare"] == welfare and mine[0]["seed"] == 1


def test_market_out_with_a_bad_suffix_is_a_usage_error_before_the_run(capsys, tmp_path):
    code = main(["run", str(DEFAULT_SCENARIO), "--market-out", str(tmp_path / "m.txt")])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.strip() == f"gridmarket: error: --market-out: {tmp_path / 'm.txt'} must end in " \
        ".csv, .parquet or .json"  # fmt: skip
