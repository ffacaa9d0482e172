"""The fuzz suite's budget: properties over generated hostile input.

Tests marked ``fuzz`` run apart from the ordinary tests (``scripts/test`` runs
them last and prints their time on its own), each with a fixed number of
examples. ``MAILBOT_FUZZ_SCALE`` multiplies every budget for a longer run on
demand::

    MAILBOT_FUZZ_SCALE=20 python3 -m pytest -m fuzz      # twenty times the examples

Use :func:`budget` in place of ``hypothesis.settings`` on a fuzz test::

    @pytest.mark.fuzz
    @budget(200)
    @given(text=st.text())
    def test_...(text: str) -> None: ...
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

__all__ = ["budget", "scale"]


def scale() -> int:
    """How many times its budget each fuzz test runs (``MAILBOT_FUZZ_SCALE``, default 1)."""
    try:
        return max(1, int(os.environ.get("MAILBOT_FUZZ_SCALE", "1")))
    except ValueError:
        return 1


def budget(examples: int) -> settings:
    """Hypothesis settings for a fuzz test: ``examples`` times the scale, no per-example
    deadline (time is checked by the test itself where it matters), no health check
    that a slow generator would trip."""
    return settings(
        max_examples=examples * scale(),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=scale() == 1,
    )
