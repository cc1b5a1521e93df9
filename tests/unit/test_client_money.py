"""What each client paid and its surplus in the market table (market/results/market_metrics.py):
over its completed jobs at every provider, a job without an end or a payment left out."""

from __future__ import annotations

import math
from types import SimpleNamespace as NS

from market.results.market_metrics import _client_money


def record(client, paid, surplus, end=5.0):
    return NS(job=NS(client=client), paid=paid, surplus=surplus, end=end)


def test_each_client_sums_its_completed_jobs_over_every_provider():
    a = {1: record("a", 10.0, 2.0), 2: record("b", 4.0, None), 3: record(None, 1.5, 0.5)}
    b = {
        4: record("a", -3.0, 1.0),  # a penalty the provider paid
        5: record("b", 7.0, 0.0, end=None),  # still running: not counted
        6: record("a", math.nan, 9.0),  # no payment figure: not counted
        7: record("b", None, None),
    }
    model = NS(service_providers={"x": NS(records=a), "y": NS(records=b)})
    money = _client_money(model)
    assert set(money) == {"a", "b", "client"}  # (a job of no client is the "client"'s)
    assert money["a"] == (7.0, 3.0)
    assert money["client"] == (1.5, 0.5)
    paid, surplus = money["b"]
    assert paid == 4.0 and math.isnan(surplus)  # (a surplus not known: NaN, as before)
