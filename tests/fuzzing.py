"""The fuzz suite's budget, its time bounds and its figures.

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

Every example a budgeted test runs is counted and timed; at the end of the run
the terminal summary says, per test, how many inputs it tried and its slowest
one (tests/conftest.py takes the hooks from here)::

    fuzz: test_fuzz_html.py::test_hostile_html_... 300 inputs, slowest 0.12 s (48 kB)

Time bounds (:func:`assert_linear_time`, :func:`assert_scales_linearly`) are
measured in CPU seconds of this process, which other processes on a loaded
machine do not inflate, as the wall clock does.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import os
import time
from collections.abc import Callable, Generator, Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

__all__ = [
    "assert_linear_time",
    "assert_scales_linearly",
    "body_of",
    "budget",
    "cpu_seconds",
    "note_input",
    "scale",
]


def scale() -> int:
    """How many times its budget each fuzz test runs (``MAILBOT_FUZZ_SCALE``, default 1)."""
    try:
        return max(1, int(os.environ.get("MAILBOT_FUZZ_SCALE", "1")))
    except ValueError:
        return 1


def body_of(test: Callable[..., object]) -> Callable[..., None]:
    """The undecorated body of the Hypothesis test ``test``: an ordinary test that runs a
    property on a few examples hands it to a fuzz test that runs it at length::

        @pytest.mark.fuzz
        @budget(500)
        @given(st.text())
        def test_..._at_length(text: str) -> None:
            body_of(test_...)(text)
    """
    inner: Callable[..., None] = test.hypothesis.inner_test  # type: ignore[attr-defined]
    return inner


def budget(examples: int) -> Callable[[Any], Any]:
    """Hypothesis settings for a fuzz test: ``examples`` times the scale, no per-example
    deadline (time is checked by the test itself where it matters), no health check
    that a slow generator would trip; and every example counted and timed for the
    summary (when the decorator sits above ``@given``)."""
    chosen = settings(
        max_examples=examples * scale(),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=scale() == 1,
    )

    def decorate(test: Any) -> Any:
        test = chosen(test)
        handle = getattr(test, "hypothesis", None)
        if handle is not None:
            handle.inner_test = counted(handle.inner_test)
        return test

    return decorate


# -- time ----------------------------------------------------------------------------


def cpu_seconds(run: Callable[[], object], repeat: int = 1) -> float:
    """The least CPU time of this process that ``run()`` took over ``repeat`` runs.

    The garbage collector is kept off during each run, so a collection that
    earlier examples left due is not charged to this one.

    >>> cpu_seconds(lambda: sum(range(1000)), repeat=2) < 1
    True
    """
    best = float("inf")
    for _ in range(repeat):
        enabled = gc.isenabled()
        gc.disable()
        try:
            started = time.process_time()
            run()
            best = min(best, time.process_time() - started)
        finally:
            if enabled:
                gc.enable()
    return best


#: A fuzz input may cost this many times a benign input of the same size, plus SLACK.
FACTOR = 10.0
#: Seconds any input may take whatever its size (fixed costs, the timer's grain).
SLACK = 0.05
#: Seconds per byte of each benign input, measured once (to spare a measurement of
#: the reference where an input is clearly within its bound).
_rates: dict[Callable[[int], bytes], float] = {}


def _rate(run: Callable[[bytes], object], benign: Callable[[int], bytes]) -> float:
    if benign not in _rates:
        reference = benign(64_000)
        _rates[benign] = cpu_seconds(lambda: run(reference), repeat=3) / len(reference)
    return _rates[benign]


def assert_linear_time(
    run: Callable[[bytes], object],
    hostile: bytes,
    benign: Callable[[int], bytes],
    *,
    factor: float = FACTOR,
    slack: float = SLACK,
    first: float | None = None,
) -> None:
    """Assert that ``run(hostile)`` takes at most ``slack + factor * t``, where ``t`` is
    the time ``run`` takes on ``benign(len(hostile))``: an input of the same size the
    code is known to read in linear time.

    The bound grows linearly with the input, at a rate measured beside the input
    in the same test, so a machine that is slow or loaded for the whole test
    moves both sides alike. ``first``: the CPU seconds of a run the test made
    already (then it is not made again). It holds without flaking on a loaded
    two-core machine:

    - CPU time of this process, not the wall clock (other processes do not count);
    - an input read within the bound at the benign input's rate measured once
      (at 64 kB, best of three) passes at once: most inputs cost one reading;
    - a slower one is measured again, and so is the benign input of its size,
      each at its best of three runs (noise only ever adds time), with the
      garbage collector kept out; only then can it fail;
    - ``factor`` is generous: the benign reference is the densest benign input
      of its kind (short lines, tag after tag), and a superlinear reader is off
      by the input's size (a hundred times at 100 kB), not by a constant.

    >>> assert_linear_time(lambda data: data.count(b"x"), b"x" * 1000, lambda n: b"y" * n)
    """
    if first is None:
        first = cpu_seconds(lambda: run(hostile))
    if first <= slack + factor * _rate(run, benign) * len(hostile):
        return
    taken = min(first, cpu_seconds(lambda: run(hostile), repeat=2))
    reference = benign(len(hostile))
    allowed = slack + factor * cpu_seconds(lambda: run(reference), repeat=3)
    assert taken <= allowed, (
        f"{len(hostile)} bytes took {taken:.3f} s of CPU, over {allowed:.3f} s "
        f"({factor:g} times a benign input of the same size, plus {slack:g} s)"
    )


def assert_scales_linearly(
    run: Callable[[bytes], object],
    make: Callable[[int], bytes],
    *,
    size: int,
    times: int = 8,
    factor: float = 2.5,
    slack: float = 0.02,
    repeat: int = 2,
) -> tuple[int, float]:
    """Assert that an input ``times`` as large takes at most ``factor * times`` as long;
    give the larger input's size and seconds.

    ``make(n)`` builds an input of about ``n`` bytes of one pattern; it is read at
    ``size`` and at ``times * size`` bytes, each at its best of ``repeat`` runs in
    CPU time. A reader linear in its input takes ``times`` as long (less, with its
    fixed costs); a quadratic one ``times ** 2`` (64 for the default 8), far
    past ``factor * times`` (20): the margin is wide on both sides.

    >>> assert_scales_linearly(lambda data: data.count(b"x"), lambda n: b"x" * n, size=1000)[0]
    8000
    """
    small, large = make(size), make(size * times)
    t_small = cpu_seconds(lambda: run(small), repeat=repeat)
    t_large = cpu_seconds(lambda: run(large), repeat=repeat)
    allowed = slack + factor * times * t_small
    assert t_large <= allowed, (
        f"{len(large)} bytes took {t_large:.3f} s of CPU, {len(small)} bytes "
        f"{t_small:.3f} s: over {allowed:.3f} s for {len(large) / max(1, len(small)):.1f} "
        "times the input"
    )
    return len(large), t_large


# -- figures ---------------------------------------------------------------------------


@dataclasses.dataclass
class _Tally:
    """The inputs one fuzz test tried, and its slowest one."""

    inputs: int = 0
    slowest: float = 0.0
    slowest_size: int = 0


_tally: _Tally | None = None
_noted: list[tuple[int, float | None]] = []


def note_input(size: int, seconds: float | None = None) -> None:
    """Tell the figures about the current example's input: its size, when it is not
    the length of the test's text and bytes arguments (an input built inside the
    test), and the seconds reading it took, when the example does more than read
    it (time checks read it again). The largest noted input counts."""
    _noted.append((size, seconds))


def _size_of(values: Iterable[object], depth: int = 0) -> int:
    total = 0
    for value in values:
        if isinstance(value, str | bytes | bytearray):
            total += len(value)
        elif depth < 2 and isinstance(value, list | tuple):
            total += _size_of(value, depth + 1)
        elif depth < 2 and isinstance(value, dict):
            total += _size_of(value.values(), depth + 1)
        elif depth < 2 and dataclasses.is_dataclass(value) and not isinstance(value, type):
            total += _size_of(vars(value).values(), depth + 1)
    return total


def counted(inner: Callable[..., Any]) -> Callable[..., Any]:
    """``inner``, each call counted and timed as one input of the fuzz test that runs it
    (as :func:`budget` counts Hypothesis's examples); outside a fuzz test, ``inner``
    as it is."""

    @functools.wraps(inner)
    def counted(*args: Any, **kwargs: Any) -> Any:
        _noted.clear()
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            seconds = time.perf_counter() - started
            size = _size_of([*args, *kwargs.values()])
            if _noted:
                size, noted = max(_noted, key=lambda n: n[0])
                seconds = seconds if noted is None else noted
            tally = _tally
            if tally is not None:
                tally.inputs += 1
                if seconds > tally.slowest:
                    tally.slowest, tally.slowest_size = seconds, size

    return counted


# the hooks below are taken into tests/conftest.py


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """A fuzz test's figures go with its report (to the controller, under pytest-xdist)."""
    global _tally
    if item.get_closest_marker("fuzz") is None:
        return (yield)
    _tally = _Tally()
    try:
        return (yield)
    finally:
        item.user_properties.append(("fuzz", dataclasses.asdict(_tally)))
        _tally = None


_figures: dict[str, dict[str, Any]] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    for key, value in report.user_properties:
        if key == "fuzz" and report.when == "call":
            _figures[report.nodeid] = value


def _kilobytes(size: int) -> str:
    return f"{size} bytes" if size < 1000 else f"{size / 1000:.0f} kB"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line per fuzz test that ran: the inputs it tried and its slowest one."""
    if not _figures:
        return
    write = terminalreporter.write_line
    terminalreporter.section("fuzz figures")
    for nodeid, tally in sorted(_figures.items()):
        name = nodeid.removeprefix("tests/")
        write(
            f"fuzz: {name} {tally['inputs']} inputs, slowest {tally['slowest']:.3f} s "
            f"({_kilobytes(tally['slowest_size'])})"
        )
    nodeid, tally = max(_figures.items(), key=lambda item: item[1]["slowest"])
    write(
        f"fuzz: {sum(t['inputs'] for t in _figures.values())} inputs in all; the slowest "
        f"{tally['slowest']:.3f} s ({_kilobytes(tally['slowest_size'])}) "
        f"in {nodeid.removeprefix('tests/')}"
    )
