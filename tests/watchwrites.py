"""A pytest plugin: the write-owner watch (``tests/writeowner.py``) on every test.

``conftest.py`` loads it for the whole suite; ``-p tests.watchwrites`` loads it alone. A
test whose code path set a row's attribute, added a row to a relationship or made a
row anywhere in the bot outside ``mailbot/store/`` fails, with the places listed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

try:
    import writeowner
except ImportError:  # loaded by -p tests.watchwrites, before tests/ is on the path
    from tests import writeowner


@pytest.fixture(autouse=True)
def _only_the_store_writes() -> Iterator[None]:
    writeowner.install()
    before = len(writeowner.FOUND)
    yield
    found = sorted(set(writeowner.FOUND[before:]))
    del writeowner.FOUND[before:]
    if found:
        pytest.fail("rows written outside mailbot/store/:\n" + "\n".join(found), pytrace=False)
