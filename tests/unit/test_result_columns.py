"""The per-job float columns (market/job_columns.py): the fast conversions give what numpy's
plain conversion gives, None as NaN, whatever mix of numbers and None a column holds."""

from __future__ import annotations

import numpy as np
import pytest

from market.job_columns import floats


@pytest.mark.parametrize(
    "values",
    [[1.5, 2, 3.25], [1.0, 2, None], [None, None, None], [None, 1.5], [], [np.float64(2.5), 1]],
    ids=["numbers", "a-none-later", "all-none", "a-none-first", "empty", "numpy-scalars"],
)
def test_float_columns_are_numpys_conversion_with_none_as_nan(values):
    got, plain = floats(list(values)), np.array(values, dtype=np.float64)
    assert got.dtype == np.float64 and got.shape == (len(values),)
    assert np.array_equal(got, plain, equal_nan=True)
