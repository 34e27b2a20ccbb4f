"""The testing helpers plugin authors use can fail: they are not rubber stamps."""

from __future__ import annotations

import numpy as np
import pytest

from mathhammer import Stage
from mathhammer.testing import assert_mean, assert_same_distribution


def stage(pmf: list[float], trials: int = 100_000) -> Stage:
    return Stage("x", "X", np.asarray(pmf), trials)


def test_assert_mean_accepts_within_and_rejects_beyond_five_standard_errors() -> None:
    s = stage([0.5, 0.5])  # mean 0.5, se ~0.0016
    assert_mean(s, 0.505)
    with pytest.raises(AssertionError, match="standard errors"):
        assert_mean(s, 0.52)


def test_assert_same_distribution_tells_close_from_different() -> None:
    assert_same_distribution(stage([0.25, 0.5, 0.25]), stage([0.2505, 0.4995, 0.25]))
    with pytest.raises(AssertionError, match="chi-square"):
        assert_same_distribution(stage([0.25, 0.5, 0.25]), stage([0.3, 0.45, 0.25]))
