"""The market table of a competing market: shares, prices, surplus, welfare (the provider's
own market metrics are registered in :mod:`market.results.metrics.market`).

:func:`market_table`: one row per agent and one for the whole market:

- service provider: revenue, rent, profit, its share of the jobs placed;
- client: jobs submitted, placed, declined (some provider accepted, but every surplus was
  negative), rejected (no provider accepted), ``paid`` and ``surplus`` (its utility at completion
  minus what it paid, over its completed jobs);
- resource provider: ``revenue`` (rent received) and ``utilization`` (processor-hours leased over
  processor-hours it had, from time 0 to the end of the run);
- market: total ``welfare`` = client surplus + service provider profit + resource revenue, and the
  share of each (``surplus_share_pct``, ``profit_share_pct``, ``rent_share_pct``). Money only
  moves between these agents (the ledger sums to zero), so welfare is the utility the completed
  jobs delivered (resource providers have no costs in this model).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from market.core.ledger import Kind

if TYPE_CHECKING:
    from market.sim.model import GridMarket


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole else math.nan


def placed_jobs(model: GridMarket) -> int:
    """Jobs committed to any service provider so far."""
    return sum(sp.accepted for sp in model.service_providers.values())


def mean_price(sp: Any) -> float:
    """The mean expected price of the quotes ``sp`` won (NaN: none, or a provider that quotes
    no prices, a deadline cluster)."""
    won = sp.accepted
    if not won or sp.sales is None:
        return math.nan
    return sp.sales.won_price / won


def market_table(model: GridMarket) -> pd.DataFrame:
    """One row per service provider, client and resource provider, and one for the market."""
    ledger, now = model.ledger, model.time if model.end_time is None else model.end_time
    placed = placed_jobs(model)
    rows: list[dict[str, Any]] = []
    profits = 0.0
    for sp in model.service_providers.values():
        profit = sp.profit
        profits += profit
        rows.append({
            "kind": "service_provider", "name": sp.name, "revenue": sp.revenue,
            "rent": sp.rent_paid, "profit": profit,
            "market_share_pct": _pct(sp.accepted, placed),
        })  # fmt: skip
    money = _client_money(model)
    surplus_total = 0.0
    for client in model.clients.values():
        paid, surplus = money.get(client.name, (0.0, 0.0))
        surplus_total += surplus
        rows.append({
            "kind": "client", "name": client.name, "submitted": client.submitted,
            "placed": client.placed, "declined": client.declined,
            "rejected": client.submitted - client.placed - client.declined, "paid": paid,
            "surplus": surplus,
        })  # fmt: skip
    rent_total = 0.0
    for rp in model.resource_providers.values():
        revenue = ledger.received(rp.name, Kind.RENT)
        rent_total += revenue
        held = rp.rented_hours + sum(
            lease.processors * (now - lease.start) for lease in rp.leases.values()
        )
        rows.append({
            "kind": "resource_provider", "name": rp.name, "revenue": revenue,
            "utilization": _pct(held, rp.capacity * now),
        })  # fmt: skip
    welfare = surplus_total + profits + rent_total
    rows.append({
        "kind": "market", "name": "market", "welfare": welfare, "surplus": surplus_total,
        "profit": profits, "revenue": rent_total,
        "surplus_share_pct": _pct(surplus_total, welfare),
        "profit_share_pct": _pct(profits, welfare), "rent_share_pct": _pct(rent_total, welfare),
    })  # fmt: skip
    columns = [
        "kind", "name", "revenue", "rent", "profit", "market_share_pct", "submitted", "placed",
        "declined", "rejected", "paid", "surplus", "utilization", "welfare",
        "surplus_share_pct", "profit_share_pct", "rent_share_pct",
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def market_figures(model: GridMarket) -> dict[str, float]:
    """The market now, as plain numbers for viewers (the snapshot): ``rent:<name>`` per resource
    provider, ``surplus`` and ``declined`` of all clients, ``profit`` of all service providers,
    ``welfare``."""
    rents = {f"rent:{rp.name}": model.ledger.received(rp.name, Kind.RENT)
             for rp in model.resource_providers.values()}  # fmt: skip
    sps = model.service_providers.values()
    surplus = math.fsum(sp.sales.client_surplus for sp in sps if sp.sales is not None)
    profit = math.fsum(sp.profit for sp in model.service_providers.values())
    return {
        **rents,
        "surplus": surplus,
        "declined": float(sum(c.declined for c in model.clients.values())),
        "profit": profit,
        "welfare": surplus + profit + math.fsum(rents.values()),
    }


def _client_money(model: GridMarket) -> dict[str, tuple[float, float]]:
    """What each client paid (net of penalties received) and its surplus, over its completed
    jobs at every provider, from the providers' records."""
    paid: dict[str, list[float]] = {}
    surplus: dict[str, list[float]] = {}
    for sp in model.service_providers.values():
        # (comprehensions: a trace replay has a record per job; fsum's sum is exact, so the
        # order in which a client's amounts come does not matter)
        done = [
            r
            for r in sp.records.values()
            if r.end is not None and r.paid is not None and r.paid == r.paid
        ]
        names = [r.job.client or "client" for r in done]
        for client in dict.fromkeys(names):
            mine = [r for r, name in zip(done, names, strict=True) if name == client]
            paid.setdefault(client, []).extend([r.paid for r in mine])
            values = [r.surplus for r in mine]
            surplus.setdefault(client, []).extend([math.nan if v is None else v for v in values])
    return {client: (math.fsum(paid[client]), math.fsum(surplus[client])) for client in paid}
