"""The checks a backup passes before restore writes anything.

Every line is read in bounded pieces (:data:`MAX_LINE`, :data:`MAX_ITEMS`,
:data:`MAX_DEPTH`) and held against the schema of the backup's revision: a
known table, known columns with every one that may not be empty, each value
of its column's kind and length, no key twice, every foreign key naming a row
the backup holds, a tournament index that names only its own folder, a game
number that is a positive whole number, a player's or team's id as the start
list takes it. :func:`mistakes` returns every mistake, one line each, so that a
broken backup is told all at once.

>>> parse(b'[1,"a",{"$":"date","v":"2026-03-01"}]')
[1, 'a', {'$': 'date', 'v': '2026-03-01'}]
>>> parse(b'[NaN]')
Traceback (most recent call last):
...
mailbot.store.backupcheck.Mistake: not JSON: NaN is not a number
>>> value_of(Column("n", Integer, nullable=False), True)
Traceback (most recent call last):
...
mailbot.store.backupcheck.Mistake: true is not a whole number
"""

from __future__ import annotations

import base64
import binascii
import collections
import dataclasses
import datetime
import gzip
import json
import math
import os
import re
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Integer,
    LargeBinary,
    String,
    Table,
    UniqueConstraint,
)

from mailbot.rules.errors import StoreError
from mailbot.store.startfields import INDEX_RULE, StartListError, is_index, read_id

#: The longest line a backup may hold, in bytes: far above any real row (the
#: largest is a raw message, about 48 MB of mail in 64 MiB of base64).
MAX_LINE = 64 << 20
#: How much of a line is read at a time.
PIECE = 1 << 20
#: The most JSON items (values and keys) one line may hold.
MAX_ITEMS = 2_000_000
#: How deep a line's JSON may nest.
MAX_DEPTH = 32
#: How many mistakes are told, one line each; the rest are counted.
SHOWN = 20

_INT32 = 2**31
_INT64 = 2**63
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")


class Mistake(StoreError, ValueError):
    """One thing wrong with one line; the message says what."""


class Unreadable(Mistake):
    """The file cannot be read on from here (damaged, or a line over :data:`MAX_LINE`)."""


def lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, bytes | bytearray]]:
    """The file's lines, numbered from 1, each read in pieces of :data:`PIECE` bytes.

    Raises :class:`Unreadable` for a line longer than :data:`MAX_LINE` or a damaged
    stream, :class:`FileNotFoundError` for no file.
    """
    with gzip.open(path, "rb") as source:
        number = 0
        while True:
            number += 1
            line = bytearray()
            try:
                while not line.endswith(b"\n") and len(line) <= MAX_LINE:
                    piece = source.readline(min(PIECE, MAX_LINE + 1 - len(line)))
                    if not piece:
                        break
                    line += piece
            except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                raise Unreadable(f"line {number}: the file is damaged or cut short") from exc
            if not line:
                return
            if len(line) > MAX_LINE:
                raise Unreadable(
                    f"line {number}: longer than {MAX_LINE >> 20} MiB, which no backup's "
                    "line is; the rest is not read"
                )
            yield number, line


def _no_constant(name: str) -> Any:
    raise Mistake(f"not JSON: {name} is not a number")


def parse(line: bytes | bytearray) -> Any:
    """One line's JSON, within :data:`MAX_ITEMS` and :data:`MAX_DEPTH`; finite numbers only."""
    items = sum(line.count(c) for c in (b",", b":", b"[", b"{"))
    if items > MAX_ITEMS:
        raise Mistake(f"more than {MAX_ITEMS:,} JSON items, no backup's row has so many")
    try:
        value = json.loads(line, parse_constant=_no_constant)
    except RecursionError:
        raise Mistake(f"JSON nested deeper than {MAX_DEPTH}") from None
    except Mistake:
        raise
    except ValueError as exc:
        raise Mistake(f"not JSON ({str(exc).splitlines()[0][:80]})") from None
    _walk(value)
    return value


def _walk(value: Any) -> None:
    """Depth within :data:`MAX_DEPTH` and every number finite, without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                raise Mistake(f"JSON nested deeper than {MAX_DEPTH}")
            inner = item.values() if isinstance(item, dict) else item
            stack.extend((v, depth + 1) for v in inner)
        elif isinstance(item, float) and not math.isfinite(item):
            raise Mistake("a number too large for any column")


def shown(value: Any) -> str:
    """A value as a mistake names it: JSON, cut at 40 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _tagged(value: Any, kind: str) -> Any:
    if not (isinstance(value, dict) and value.get("$") == kind and set(value) == {"$", "v"}):
        raise Mistake(f'{shown(value)} is not a {kind} value ({{"$": "{kind}", ...}})')
    return value["v"]


def _text(value: Any, length: int | None) -> str:
    if not isinstance(value, str):
        raise Mistake(f"{shown(value)} is not text")
    if length is not None and len(value) > length:
        raise Mistake(f"{len(value)} characters, more than its {length}")
    if _UNSTORABLE.search(value):
        raise Mistake("text with a character no database stores (NUL or a lone surrogate)")
    return value


def _json(value: Any) -> Any:
    inner = _tagged(value, "json") if isinstance(value, dict) else value
    stack = [inner]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            _text(item, None)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return inner


def _moment(value: Any) -> datetime.datetime:
    text = _tagged(value, "datetime")
    try:
        moment = datetime.datetime.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise Mistake(f"{shown(text)} is not a date and time with its UTC offset")
    try:
        return moment.astimezone(datetime.UTC)
    except OverflowError:
        raise Mistake(f"{shown(text)} is outside the years 1 to 9999 in UTC") from None


def _day(value: Any) -> datetime.date:
    text = _tagged(value, "date")
    try:
        if isinstance(text, str):
            return datetime.date.fromisoformat(text)
    except ValueError:
        pass
    raise Mistake(f"{shown(text)} is not a date")


def _bytes(value: Any) -> bytes:
    text = _tagged(value, "bytes")
    try:
        if isinstance(text, str):
            return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        pass
    raise Mistake("not base64")


def value_of(column: Column[Any], value: Any) -> Any:
    """``value`` as the backup holds it, checked against ``column``: the value decoded.

    Raises :class:`Mistake` saying why it does not fit.
    """
    kind = column.type
    if value is None:
        if not column.nullable:
            raise Mistake("empty, which it may not be")
        return None
    if isinstance(kind, Boolean):
        if not isinstance(value, bool):
            raise Mistake(f"{shown(value)} is not true or false")
        return value
    if isinstance(kind, Integer):
        bound = _INT64 if isinstance(kind, BigInteger) else _INT32
        if not isinstance(value, int) or isinstance(value, bool):
            raise Mistake(f"{shown(value)} is not a whole number")
        if not -bound <= value < bound:
            raise Mistake(f"{shown(value)} is too large for the column")
        return value
    if isinstance(kind, DateTime):
        return _moment(value)
    if isinstance(kind, Date):
        return _day(value)
    if isinstance(kind, LargeBinary):
        return _bytes(value)
    if isinstance(kind, JSON):
        return _json(value)
    if isinstance(kind, String):
        return _text(value, kind.length)
    raise Mistake(f"a column of a kind restore does not know ({kind})")


def _index(value: Any) -> str | None:
    return None if is_index(value) else f"{shown(value)} is not a tournament index ({INDEX_RULE})"


def _number(value: Any) -> str | None:
    return None if value > 0 else f"{shown(value)} is not a game number (1, 2, 3, ...)"


def _key(value: Any) -> str | None:
    try:
        if read_id(value, "") == value:
            return None
    except StartListError as exc:
        return f"{shown(value)} is not an id: {exc.message}"
    return f"{shown(value)} is not an id: spaces around it"


#: What a column's values mean beyond their kind, by table and column.
MEANINGS: dict[tuple[str, str], Callable[[Any], str | None]] = {
    ("tournaments", "index"): _index,
    ("games", "number"): _number,
    ("players", "key"): _key,
    ("teams", "key"): _key,
}


@dataclasses.dataclass
class _Report:
    """The mistakes found so far: the first :data:`SHOWN` in full, the rest counted."""

    path: str
    lines: list[str] = dataclasses.field(default_factory=list)
    more: int = 0

    def add(self, number: int | None, text: str) -> None:
        if len(self.lines) >= SHOWN:
            self.more += 1
            return
        where = f"{self.path}, line {number}" if number is not None else self.path
        self.lines.append(f"{where}: {text}")

    def told(self) -> list[str]:
        tail = [f"... and {self.more} more mistakes"] if self.more else []
        return [*self.lines, *tail]


class _Keys:
    """The keys seen so far: each unique set of columns, and every column a key names."""

    def __init__(self, tables: dict[str, Table]) -> None:
        self.unique: dict[tuple[str, tuple[str, ...]], set[tuple[Any, ...]]] = {}
        self.named: dict[tuple[str, str], set[Any]] = {}
        #: Foreign keys not found when their row was read: (line, table, column, target).
        self.pending: list[tuple[int, str, str, tuple[str, str], Any]] = []
        self.sets = {t.name: self._unique_sets(t) for t in tables.values()}
        #: Tables whose rows were passed over after a mistake in their table line (None:
        #: a table that is not known): a key naming them is not told as missing.
        self.unread: set[str | None] = set()
        for table in tables.values():
            for key in table.foreign_keys:
                self.named.setdefault((key.column.table.name, key.column.name), set())

    @staticmethod
    def _unique_sets(table: Table) -> list[tuple[str, ...]]:
        """The primary key, each unique constraint and each unique index, as column names."""
        sets = [
            tuple(c.name for c in table.primary_key.columns),
            *(
                tuple(c.name for c in u.columns)
                for u in table.constraints
                if isinstance(u, UniqueConstraint)
            ),
            *(
                tuple(c.name for c in i.columns if isinstance(c, Column))
                for i in table.indexes
                if i.unique
            ),
        ]
        return [s for s in dict.fromkeys(sets) if s]

    def add(self, report: _Report, number: int, table: Table, row: dict[str, Any]) -> None:
        for names in self.sets[table.name]:
            values = tuple(row.get(n) for n in names)
            if any(v is None for v in values):
                continue
            seen = self.unique.setdefault((table.name, names), set())
            if values in seen:
                shown_values = ", ".join(
                    f"{n} {shown(v)}" for n, v in zip(names, values, strict=True)
                )
                report.add(number, f"table {table.name}: a second row with {shown_values}")
            seen.add(values)
        for (name, column), values_of in self.named.items():
            if name == table.name and row.get(column) is not None:
                values_of.add(row[column])
        for key in table.foreign_keys:
            value = row.get(key.parent.name)
            target = (key.column.table.name, key.column.name)
            if value is not None and value not in self.named[target]:
                self.pending.append((number, table.name, key.parent.name, target, value))

    def dangling(self, report: _Report) -> None:
        for number, name, column, (target, target_column), value in self.pending:
            if None in self.unread or target in self.unread:
                continue
            if value not in self.named[(target, target_column)]:
                report.add(
                    number,
                    f"table {name}, column {column}: {shown(value)} names no row of {target}",
                )


def mistakes(path: str | os.PathLike[str], tables: dict[str, Table]) -> list[str]:
    """Every mistake in the backup ``path`` after its header, held against ``tables`` (the
    schema of its revision), one line each; none: it may be restored."""
    reading = _Reading(_Report(str(path)), _Keys(tables), tables)
    try:
        for number, line in lines(path):
            if number == 1:
                continue  # the header, read already
            try:
                record = parse(line)
            except Mistake as exc:
                reading.report.add(number, str(exc))
                reading.unreadable(line)
                continue
            reading.line(number, record)
    except Unreadable as exc:
        reading.report.add(None, str(exc))
        return reading.report.told()
    if reading.end is None:
        reading.report.add(None, "the backup is cut short (no end line)")
    reading.keys.dangling(reading.report)
    return reading.report.told()


@dataclasses.dataclass
class _Reading:
    """Where the reading is: the table the rows belong to, its columns, what was found."""

    report: _Report
    keys: _Keys
    tables: dict[str, Table]
    table: Table | None = None
    columns: list[str] = dataclasses.field(default_factory=list)
    #: True after a table line with a mistake: its rows are not checked one by one.
    skipping: bool = False
    rows: int = 0
    end: int | None = None

    def unreadable(self, line: bytes | bytearray) -> None:
        """After a line that is not JSON its keys are not known: if it was (by the look of
        it) a table line, the rows after it are passed over; else its table's keys are
        unknown."""
        if line.lstrip().startswith(b"{"):
            self.table, self.columns, self.skipping = None, [], True
            self.keys.unread.add(None)
        else:
            self.keys.unread.add(self.table.name if self.table is not None else None)
            self.rows += 1

    def line(self, number: int, record: Any) -> None:
        """Check one line after the header."""
        if self.end is not None:
            self.report.add(number, f"a line after the end line (line {self.end})")
        elif isinstance(record, list):
            self.rows += 1
            if self.table is not None:
                self._row(self.table, number, record)
            elif not self.skipping:
                self.report.add(number, "a row before any table line")
        elif isinstance(record, dict) and "table" in record:
            self._table_line(number, record.get("table"), record.get("columns"))
        elif isinstance(record, dict) and "end" in record:
            self.end = number
            if record != {"end": True, "rows": self.rows}:
                self.report.add(
                    number,
                    f"the end line {shown(record)} does not count the {self.rows} rows "
                    "before it: the backup is cut short or altered",
                )
        else:
            self.report.add(
                number, f"{shown(record)} is neither a table line, a row nor the end line"
            )

    def _table_line(self, number: int, name: Any, columns: Any) -> None:
        self.table, self.columns, self.skipping = None, [], True
        if not isinstance(name, str) or name not in self.tables:
            self.report.add(
                number, f"table {shown(name)} is not in the schema of the backup's revision"
            )
            self.keys.unread.add(None)
            return
        table = self.tables[name]
        if not (isinstance(columns, list) and all(isinstance(c, str) for c in columns)):
            self.report.add(number, f"table {name}: its columns are not a list of names")
            self.keys.unread.add(name)
            return
        counted = collections.Counter(columns)
        found = [
            *(f"no column {shown(c)}" for c in counted if c not in table.columns),
            *(f"column {c} twice" for c, n in counted.items() if n > 1),
            *(
                f"column {c.name} is missing and may not be empty"
                for c in table.columns
                if not c.nullable and c.name not in counted
            ),
        ]
        for text in found:
            self.report.add(number, f"table {name}: {text}")
        if found:
            self.keys.unread.add(name)
        else:
            self.table, self.columns, self.skipping = table, columns, False

    def _row(self, table: Table, number: int, record: list[Any]) -> None:
        if len(record) != len(self.columns):
            self.report.add(
                number,
                f"table {table.name}: a row of {len(record)} values for "
                f"{len(self.columns)} columns",
            )
            return
        row: dict[str, Any] = {}
        for name, value in zip(self.columns, record, strict=True):
            try:
                row[name] = value_of(table.columns[name], value)
                meaning = MEANINGS.get((table.name, name))
                problem = None if meaning is None or row[name] is None else meaning(row[name])
                if problem is not None:
                    raise Mistake(problem)
            except Mistake as exc:
                self.report.add(number, f"table {table.name}, column {name}: {exc}")
                row.pop(name, None)
        self.keys.add(self.report, number, table, row)
