"""Workloads: where clients' jobs come from.

Each workload kind is a pydantic model of its parameters (validated from a scenario file) with a
``generate(rng, first_id, client)`` method returning the job stream in arrival order.
"""

from market.workloads.profit import ProfitWorkload

Workload = ProfitWorkload

__all__ = ["ProfitWorkload", "Workload"]
