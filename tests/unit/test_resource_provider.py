"""The resource provider's view of its leases for a pool that never varies: the free-processor
profile it keeps (from the leases in order of their ends) is the forecast's profile, whatever
the order of rentals, early or late releases and the passing of time (market/core/forecast.py)."""

from __future__ import annotations

import mesa
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.resource_provider import ResourceProviderAgent
from market.core.ledger import Ledger
from market.sim.clock import Clock


class Pool(mesa.Model):
    """Just enough model for a resource provider: a clock and a ledger."""

    def __init__(self) -> None:
        super().__init__(rng=0)
        self.clock = Clock(self).event_driven()
        self.ledger = Ledger()


actions = st.lists(
    st.one_of(
        st.tuples(st.just("rent"), st.integers(1, 6), st.sampled_from([0.5, 1.0, 1.5, 3.0])),
        st.tuples(st.just("release"), st.integers(0, 20), st.just(0.0)),
        st.tuples(st.just("wait"), st.just(0), st.sampled_from([0.25, 0.5, 1.0, 2.0])),
    ),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(actions=actions)
def test_the_kept_profile_is_the_forecasts(actions):
    model = Pool()
    rp = ResourceProviderAgent(model, "pool", 16, 1.0)
    leases = []
    for kind, n, hours in actions:
        if kind == "rent":
            lease = rp.rent("sp", n, model.time + hours)
            if lease is not None:
                leases.append(lease)
        elif kind == "release" and leases:
            rp.release(leases.pop(n % len(leases)))
        elif kind == "wait":
            model.run_until(model.time + hours)  # leases may now run past their announced end
        now = model.time
        assert rp.free_profile(now).steps() == rp.forecast(now).profile(None).steps()
        assert rp.free_profile(now).free_at(now) <= rp.capacity
