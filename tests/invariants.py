"""The invariants every run of a market must keep, for property tests over random markets
(:mod:`tests.markets`).

:func:`watch` instruments a model before it runs (every lease is logged, and checked against the
pool's availability when it is granted); :func:`check_invariants` checks a finished run: no pool
ever lends more than its capacity, every committed job completed exactly once and paid for once
(by its quote's terms), money conserved, and welfare (client surplus + provider profit + rent)
the utility the completed jobs delivered. :func:`check_tables` checks that the run's tables
agree with each other and with the ledger, :func:`check_guarantees` that admitted deadline jobs
met their deadlines where a policy promises it. :func:`stalled_on_availability` says whether a
stall is explained by the pools' chances.
"""

from __future__ import annotations

import math
from collections import Counter

from market.core.ledger import Kind
from market.sim.model import GridMarket

TOLERANCE = 1e-6  # hours, and florins relative to the money moved


def _pools(sp) -> list:
    """The resource providers ``sp`` rents from."""
    return getattr(sp, "pools", None) or [sp.resource_provider]


# -- invariants ------------------------------------------------------------------------------------
def watch(model: GridMarket) -> None:
    """Log every lease of every pool as it is granted and returned (``rp.lease_log``: time and
    processors held after), checking at each grant that it fits what the pool has for its
    tenants then (no pool lends more than its availability, leases held included)."""
    for rp in model.resource_providers.values():
        rent, release = rp.rent, rp.release
        rp.lease_log = []

        def rented(tenant, processors, until, job=None, *, rp=rp, rent=rent):
            lease = rent(tenant, processors, until, job)
            if lease is not None:
                assert processors >= 1, f"{rp.name}: a lease of {processors} processors"
                assert rp.in_use <= rp.availability, (
                    f"{rp.name} lent {rp.in_use} processors at t={rp.model.time} with "
                    f"{rp.availability} available"
                )
                rp.lease_log.append((rp.model.time, rp.in_use))
            return lease

        def released(lease, *, rp=rp, release=release):
            rent = release(lease)
            rp.lease_log.append((rp.model.time, rp.in_use))
            return rent

        rp.rent, rp.release = rented, released


def _time_shared(provider) -> bool:
    """Whether ``provider`` time-shares its nodes (Libra): jobs run slower than alone, and
    several may hold one node."""
    return getattr(getattr(provider, "policy", None), "sharing", "space") == "time"


def check_invariants(model: GridMarket) -> None:
    """Assert the invariants of a run that finished (see the module docstring); the model must
    have been :func:`watch`-ed."""
    assert not model.running, "the run did not finish"
    # Capacity: the processors each pool has lent never exceed it, at any time; all returned.
    for rp in model.resource_providers.values():
        assert not rp.leases and rp.in_use == 0, f"{rp.name} still has leases"
        for time, held in rp.lease_log:
            assert 0 <= held <= rp.capacity, f"{rp.name} lent {held} at t={time}"
    # Jobs: every committed job ran once, after it arrived, on one of its shapes, for its
    # runtime there (at least that when time-shared; to the clock's tick when it has one);
    # space-shared jobs never overlap beyond their pool (ends before starts at a tie).
    committed: Counter[int] = Counter()
    usage: dict[str, list[tuple[float, int]]] = {name: [] for name in model.resource_providers}
    ticks = model.clock.ticks_per_hour  # with a trace, times are snapped to its second grid
    slack = 1e-9 if ticks is None else 0.5 / ticks + 1e-9
    for sp in model.service_providers.values():
        assert sp.idle and sp.busy == 0, f"{sp.name} is not idle at the end"
        shared = _time_shared(sp)
        for job_id, record in sp.records.items():
            if not record.committed:
                assert record.start is None, f"job {job_id} ran at {sp.name} uncommitted"
                continue
            committed[job_id] += 1
            job = record.job
            assert record.start is not None and record.end is not None, (
                f"job {job_id} committed to {sp.name} never completed"
            )
            assert record.processors in job.shapes
            assert record.start >= job.arrival - slack
            took, runtime = record.end - record.start, job.runtime(record.processors)
            if shared:
                assert took >= runtime * (1 - 1e-9) - slack, f"job {job_id} ran too fast"
                continue
            assert math.isclose(took, runtime, rel_tol=1e-9, abs_tol=slack), f"job {job_id}"
            pool = _pools(sp)[record.pool].name
            usage[pool].append((record.start, record.processors))
            usage[pool].append((record.end, -record.processors))
    assert all(n == 1 for n in committed.values()), "a job was committed twice"
    assert sum(sp.accepted for sp in model.service_providers.values()) == len(committed)
    for name, events in usage.items():
        held, capacity = 0, model.resource_providers[name].capacity
        for time, change in sorted(events, key=lambda e: (e[0], e[1])):
            held += change
            assert held <= capacity, f"jobs hold {held} of {name}'s {capacity} at t={time}"
    # Money: every committed job settled once (nothing for a zero value), balances sum to zero.
    settled = Counter(e.job for e in model.ledger.entries if e.kind in (Kind.PAYMENT, Kind.PENALTY))
    delivered = []
    for sp in model.service_providers.values():
        for job_id, record in sp.records.items():
            if record.committed:
                assert settled[job_id] == (record.paid != 0), f"job {job_id} settled wrongly"
                delivered.append(record.job.utility(record.end))
                quote = record.quote
                if quote is not None and quote.price is not None:  # paid by the quote's terms
                    assert record.paid == quote.payment(record.job, record.end)
                    assert record.paid >= min(quote.price, record.job.utility.penalty_bound)
                    assert record.paid <= quote.price
                else:
                    assert record.paid == record.job.utility(record.end)
    assert set(settled) <= set(committed), "a job not committed was paid for"
    balances = model.ledger.balances()
    moved = math.fsum(abs(b) for b in balances.values())
    assert abs(math.fsum(balances.values())) <= TOLERANCE * max(moved, 1.0), "money not conserved"
    if model.clients:  # welfare: surplus + profit + rent = the utility delivered
        welfare = model.result().market.set_index("kind").loc["market", "welfare"]
        scale = max(moved, math.fsum(abs(u) for u in delivered), 1.0)
        assert abs(welfare - math.fsum(delivered)) <= TOLERANCE * scale, "welfare is not utility"


def stalled_on_availability(model: GridMarket) -> bool:
    """Whether a stall is explained by the pools' chances: a waiting job needs what its pool
    offers so rarely that the stall window (``model.stall_after``) would see it fewer than
    ten times on average (outages and the other tenants aside)."""
    for sp in model.service_providers.values():
        for job in sp.queue:
            rp = _pools(sp)[sp.records[job.id].pool]
            if rp.varies:
                chance = rp.chance_of(sp.least_need(job))
                if chance * model.stall_after / rp.uncertainty.period < 10:
                    return True
    return False


def _close(a: float, b: float, scale: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(scale, 1.0)


def check_tables(model: GridMarket) -> None:
    """Assert that a finished run's tables agree with each other and with the ledger: each
    provider's summary (accepted, completed, revenue, rent) and market row with its per-job
    rows and the ledger; each client's submitted, placed, declined and rejected with the per-job
    table; each pool's rent received with its tenants' rent."""
    result = model.result()
    jobs, summary, market = result.jobs, result.summary, result.market
    ledger = model.ledger
    moved = math.fsum(abs(e.amount) for e in ledger.entries)
    by_name = market.set_index("name")
    committed = jobs[jobs["committed"].astype(bool)]
    for sp in model.service_providers.values():
        rows = committed[committed["provider"] == sp.name]
        row = summary[summary["provider"] == sp.name].iloc[0]
        assert row["accepted"] == len(rows) == sp.accepted, f"{sp.name}: accepted"
        assert row["completed"] == int(rows["end"].notna().sum()), f"{sp.name}: completed"
        revenue = ledger.received(sp.name, Kind.PAYMENT) - ledger.paid(sp.name, Kind.PENALTY)
        rent = ledger.paid(sp.name, Kind.RENT)
        assert _close(math.fsum(rows["paid"].dropna()), revenue, moved), f"{sp.name}: revenue"
        for where, value in (
            ("summary", row["rent"]),
            ("market table", by_name.loc[sp.name, "rent"]),
        ):
            assert _close(value, rent, moved), f"{sp.name}: {where} rent {value} != ledger {rent}"
        assert _close(by_name.loc[sp.name, "revenue"], revenue, moved), f"{sp.name}: revenue"
        assert _close(math.fsum(rows["rent"].dropna()), rent, moved), f"{sp.name}: job rent"
        profit = math.fsum(rows["profit"].dropna())
        assert _close(profit, revenue - rent, moved), f"{sp.name}: job profits"
    for client in model.clients.values():
        mine = jobs[jobs["client"].fillna("client") == client.name]
        placed = committed[committed["client"].fillna("client") == client.name]
        assert placed["job"].is_unique, f"{client.name}: a job placed twice"
        row = by_name.loc[client.name]
        assert row["placed"] == len(placed) == client.placed, (
            f"{client.name}: placed {row['placed']}, the per-job table {len(placed)}"
        )
        assert row["submitted"] >= mine["job"].nunique() and row["rejected"] >= 0
        paid = math.fsum(placed["paid"].dropna())
        assert _close(row["paid"], paid, moved), f"{client.name}: paid"
    for rp in model.resource_providers.values():
        received = ledger.received(rp.name, Kind.RENT)
        assert _close(by_name.loc[rp.name, "revenue"], received, moved), f"{rp.name}: revenue"
        tenants = math.fsum(
            ledger.paid(sp.name, Kind.RENT)
            for sp in model.service_providers.values()
            if rp in _pools(sp) and len(_pools(sp)) == 1
        )
        if all(len(_pools(sp)) == 1 for sp in model.service_providers.values() if rp in _pools(sp)):
            assert _close(received, tenants, moved), f"{rp.name}: rent received vs paid"
    assert _close(math.fsum(e.amount for e in ledger.entries if e.kind == Kind.RENT),
                  math.fsum(ledger.received(rp, Kind.RENT) for rp in model.resource_providers),
                  moved)  # fmt: skip


def guaranteed(model: GridMarket, sp) -> bool:
    """Whether ``sp`` promises that every job it admits meets its deadline: a QoPS-family
    admission with its own scheduler, on one pool that never varies and that it rents alone,
    and no job it admitted ran longer than its estimate (QoPS TR §3; README, the guarantee)."""
    from market.inputs.scenario import paired_scheduler

    spec = next((s for s in model.spec.service_providers if s.name == sp.name), None)
    if spec is None or spec.cluster is not None:
        return False
    own = paired_scheduler(spec.admission)
    pools = _pools(sp)
    if own is None or spec.scheduler.name != own or len(pools) != 1 or pools[0].varies:
        return False
    if pools[0].tenants != [sp]:
        return False
    return all(
        r.job.predicted_runtime(r.processors) >= r.job.runtime(r.processors)
        for r in sp.records.values()
        if r.committed
    )


def check_guarantees(model: GridMarket) -> int:
    """Assert that every admitted deadline job of a provider that promises it
    (:func:`guaranteed`) met its deadline; the number of such jobs."""
    kept = 0
    for sp in model.service_providers.values():
        if not guaranteed(model, sp):
            continue
        for job_id, record in sp.records.items():
            deadline = record.job.deadline
            if record.committed and deadline is not None:
                assert record.end <= deadline + 1e-9, (
                    f"{sp.name} admitted job {job_id} with deadline {deadline:g} h; it ended at "
                    f"{record.end:g} h"
                )
                kept += 1
    return kept
