"""Readable report figures (market/experiments/report_figures.py): log axes for geometric points,
panels cut
to the policies that do not swamp the rest, labels from the sweep spec."""

from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from market.experiments.report_figures import geometric, robust_range
from market.inputs.sweep_spec import SweepSpec

LOAD = "clients.0.workload.mean_interarrival"


def test_geometric_points_get_a_log_axis():
    assert geometric([0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0])  # the profit paper's
    assert geometric([1.0, 2.0, 3.7, 7.5, 15.0, 30.0, 60.0, 120.0])  # its decay rates
    assert not geometric([5, 10, 15, 20, 25, 30, 35, 40])  # evenly spaced
    assert not geometric([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 12.0])  # prices
    assert not geometric([0, 0.5, 1, 2, 4])  # a zero: no log axis
    assert not geometric([1.0, 1.5, 2.0])  # spans less than a factor of 4
    assert not geometric([0.1, 1.0])  # two points say nothing about spacing


def test_a_policy_whose_interval_swamps_the_rest_is_clipped_and_named():
    # two sane policies span 60 .. 100; accept-all's +-20,000 spans 40,000: 400 times as much
    data = pd.DataFrame(
        {
            "policy": ["A", "A", "B", "B", "accept all", "accept all"],
            "mean": [80.0, 90.0, 70.0, 75.0, -100.0, 300.0],
            "ci95": [10.0, 10.0, 10.0, 5.0, 20000.0, 100.0],
        }
    )
    y_range, notes = robust_range(data, "ci95")
    pad = 0.08 * (100 - 60)
    assert y_range == pytest.approx([60 - pad, 100 + pad])
    assert notes == ["accept all clipped (reaches -20,100 to 19,900)"]
    # within SWAMP (5 x) of the others: 20 .. 130 spans 110, under 5 x 40; nothing is cut
    data.loc[4:5, "mean"] = [70.0, 80.0]
    data.loc[4:5, "ci95"] = [50.0, 50.0]
    assert robust_range(data, "ci95") == (None, [])


def test_labels_name_swept_parameters_only():
    spec = SweepSpec(parameters={LOAD: [0.1, 0.2]}, labels={LOAD: "mean inter-arrival time (h)"})
    assert spec.labels[LOAD] == "mean inter-arrival time (h)"
    with pytest.raises(ValidationError, match=r"labels: resource_providers\.0\.price is not"):
        SweepSpec(parameters={LOAD: [0.1, 0.2]}, labels={"resource_providers.0.price": "price"})
    with pytest.raises(ValidationError, match="the label is empty"):
        SweepSpec(parameters={LOAD: [0.1, 0.2]}, labels={LOAD: " "})
