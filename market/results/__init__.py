"""What a run hands back: the run result, its per-job columns and its metrics.

Importing this package fills the metric registry (:mod:`market.results.metrics`): every family's
metrics and per-job columns are registered before any result is read.
"""

from market.results import metrics  # noqa: F401
