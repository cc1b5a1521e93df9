"""A service provider on a batch site (agents/site_broker.py): QBETS quotes by hand, and a
market where it gets the same jobs as a client of a provider renting a pool."""

from __future__ import annotations

import math

import pytest

from agents.site_broker import quote_on_site
from market.inputs.scenario import validate
from market.sim.model import GridMarket
from tests.conftest import make_job, synthetic_swf


class Stub:
    """Delays bounded by 2 h on 1 node and 0.5 h on 2 nodes, whatever the quantile."""

    def bound(self, nodes, walltime, quantile):
        return {1: 2.0, 2: 0.5}.get(nodes, math.inf)

    def probability(self, nodes, walltime, wait):
        return 0.9 if wait >= self.bound(nodes, walltime, 0.9) else 0.0


def test_the_quote_takes_the_shape_with_the_best_value_at_its_promised_completion():
    # 4 processor-hours of work, serial fraction 0: 4 h on 1 node, 2 h on 2, no bound on 3.
    # Value 100 decaying 10 per hour from 0. On 1 node: done by 0 + 2 + 4 = 6 h, value 40,
    # charge 1 x 4 x 1 = 4: profit 36. On 2: by 0.5 + 2 = 2.5 h, value 75, charge 2 x 2 = 4:
    # profit 71. The quote: 2 nodes by 2.5 h at probability 0.9.
    job = make_job(1, 4.0, 100.0, 10.0, shapes=(1, 2, 3))
    quote = quote_on_site(Stub(), job, 0.0, 0.9, price=1.0)
    assert (quote.processors, quote.completion, quote.probability) == (2, 2.5, 0.9)
    assert quote.profit == pytest.approx(71.0)
    assert quote_on_site(Stub(), make_job(2, 4.0, 100.0, shapes=(3,)), 0.0, 0.9, 1.0) is None


def test_a_broker_next_to_a_provider_renting_a_pool(tmp_path):
    trace = synthetic_swf(tmp_path / "s.swf", n=300, procs=16, max_gap=600)
    workload = {"kind": "profit", "jobs": 120, "mean_interarrival": 0.15}
    spec = {
        "name": "broker",
        "service_providers": [{"name": "sp"}],
        "clients": [{"name": "clients", "workload": workload}],
        "batch_sites": [
            {
                "name": "site",
                "trace": str(trace),
                "brokers": [{"name": "b", "same_jobs_as": 0, "workload": workload}],
            }
        ],
    }
    model = GridMarket(validate(spec))
    result = model.run()
    broker = next(u for u in model.varq_users if u.name == "site/b")
    client_jobs = model.clients["clients"]
    assert client_jobs.submitted == len(broker.jobs) == 120
    sp_jobs = result.jobs.sort_values("job")
    assert [j.work for j in broker.jobs] == pytest.approx(sp_jobs.work.tolist())  # same jobs
    assert list(result.summary["provider"]) == ["sp"]  # the broker's row is the site table's
    (row,) = result.sites.itertuples(index=False)
    assert row.provider == "site/b" and row.site == "site"
    done = [(job, sj) for job, sj in broker.submitted.values()]
    assert row.accepted == len(done) > 0 and all(sj.end is not None for _, sj in done)
    assert row.revenue == pytest.approx(math.fsum(job.utility(sj.end) for job, sj in done))
    assert row.promised_probability_pct >= 90.0  # every quote is at its 0.9 bound or above
