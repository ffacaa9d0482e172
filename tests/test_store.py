from __future__ import annotations

import datetime
import hashlib
import sqlite3
import time
import warnings
from collections.abc import Callable, Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from deskbench import BOT, TD, Bench
from migrated import migrated
from sqlalchemy import CheckConstraint, Engine, func, inspect, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError, StatementError
from sqlalchemy.orm import Session, sessionmaker

from mailbot.rules.clock import NaiveDatetimeError
from mailbot.store.engine import describe_url, make_engine, session_factory
from mailbot.store.kinds import MailEvent, NoticeKind, OutboxStatus
from mailbot.store.models import (
    Base,
    Game,
    HeldOrder,
    InboundMessage,
    Move,
    Notice,
    Outbox,
    Player,
    Tournament,
)
from mailbot.store.outbox import dismiss
from mailbot.store.schema import downgrade, migrations_directory, schema_revision, upgrade
from mailbot.store.startlist import parse_start_list
from mailbot.store.tournaments import DuplicateTournamentError, import_start_list

UTC = datetime.UTC
SOFIA = datetime.timezone(datetime.timedelta(hours=2))
NOW = datetime.datetime(2026, 2, 20, 12, 0, tzinfo=UTC)

START_LIST = """\
index: BG-2026-E1
name: National e-mail championship
profile: bg-email
start: 2026-03-01
end: 2027-06-30
language: bg
notation: bg-cyrillic
conditional_moves: true
rules: {penalty_days: 10}
director: {name: Georgi Georgiev, email: td@federation.example}
players:
  - {id: ivanov, name: Ivan Ivanov, email: ivanov@example.org}
  - {id: petrov, name: Petar Petrov, email: petrov@example.org, language: en, notation: en}
  - {id: popov, name: Pavel Popov, email: popov@example.org}
  - {id: kolev, name: Kolyo Kolev, email: kolev@example.org}
games: double-round-robin
"""


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    migrated(db_url)
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def sessions(engine: Engine) -> sessionmaker[Session]:
    return session_factory(engine)


@pytest.fixture
def tournament_id(sessions: sessionmaker[Session]) -> int:
    with sessions.begin() as session:
        return import_start_list(session, parse_start_list(START_LIST), NOW).id


def inbound(n: int, **changes: object) -> InboundMessage:
    raw = f"Message-ID: <{n}@example.org>\r\n\r\n1. e2-e4\r\n".encode()
    values: dict[str, object] = {
        "message_id": f"<{n}@example.org>",
        "raw_sha256": hashlib.sha256(raw).hexdigest(),
        "folder": "INBOX",
        "uidvalidity": 7,
        "uid": n,
        "internaldate": NOW,
        "from_addr": "ivanov@example.org",
        "subject": "[BG-2026-E1/1]",
        "raw": raw,
        "created_at": NOW,
    }
    values.update(changes)
    return InboundMessage(**values)


def schema_differences(engine: Engine) -> list[object]:
    with warnings.catch_warnings():
        # SQLite cannot reflect the expression index of the notice ledger;
        # its effect is checked in test_notice_ledger_is_unique.
        warnings.filterwarnings("ignore", message=".*expression-based index")
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))


def test_on_sqlite_a_reader_holds_up_no_commit_and_sees_what_was_there(sqlite_url: str) -> None:
    """The courier reads the outbox while the desk commits the next batch: in the
    write-ahead log neither waits for the other (with a rollback journal the desk's
    commit waited for the reader to finish, and failed as 'database is locked')."""
    migrated(sqlite_url)
    writer = make_engine(sqlite_url, connect_args={"timeout": 0.2})
    try:
        with writer.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
        # a reader in the middle of a read transaction, as a process of its own would be
        reader = sqlite3.connect(make_url(sqlite_url).database or "", isolation_level=None)
        try:
            counted = "SELECT count(*) FROM inbound_messages"
            reader.execute("BEGIN")
            assert reader.execute(counted).fetchone() == (0,)
            with Session(writer) as writing, writing.begin():
                writing.add(inbound(1))
            assert reader.execute(counted).fetchone() == (0,)  # what was there when it began
            reader.execute("COMMIT")
            assert reader.execute(counted).fetchone() == (1,)
        finally:
            reader.close()
    finally:
        writer.dispose()


def test_on_postgresql_a_connection_the_server_dropped_while_idle_is_replaced_unseen(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restarted server leaves dead connections in the bot's pool. One that sat idle
    (as every connection does in the daemon's wait between passes) is asked first and
    replaced: the next transaction works. One used a moment ago is not asked, so one
    the server dropped in that moment fails its first statement, and the pool is then
    connected anew."""
    monkeypatch.setattr("mailbot.store.engine.IDLE_BEFORE_PING", 0.2)
    engine = make_engine(postgres_url)
    killer = make_engine(postgres_url)
    backend = "SELECT pg_backend_pid()"

    def drop(pid: int) -> None:
        with killer.connect() as connection:
            assert connection.exec_driver_sql(f"SELECT pg_terminate_backend({pid})").scalar()

    try:
        with engine.connect() as connection:
            first = connection.exec_driver_sql(backend).scalar()
        assert isinstance(first, int)
        drop(first)
        time.sleep(0.3)  # idle past IDLE_BEFORE_PING
        with engine.connect() as connection:
            second = connection.exec_driver_sql(backend).scalar()
        assert isinstance(second, int) and second != first

        # a connection used a moment ago: however long the drop takes on a busy machine
        monkeypatch.setattr("mailbot.store.engine.IDLE_BEFORE_PING", 3600.0)
        drop(second)
        with pytest.raises(OperationalError), engine.connect() as connection:
            connection.exec_driver_sql(backend)
        with engine.connect() as connection:
            assert connection.exec_driver_sql(backend).scalar() not in (first, second)
    finally:
        engine.dispose()
        killer.dispose()


def test_migration_creates_exactly_the_models(engine: Engine) -> None:
    assert schema_differences(engine) == []
    reflected = inspect(engine)
    for table in Base.metadata.sorted_tables:
        declared = {c.name for c in table.constraints if isinstance(c, CheckConstraint)}
        found = {c["name"] for c in reflected.get_check_constraints(table.name)}
        assert found == declared, table.name


def test_schema_differences_are_noticed(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        upgrade(engine)
        with engine.begin() as connection:
            connection.exec_driver_sql("DROP TABLE reply_counts")
        assert [d[0] for d in schema_differences(engine)] == ["add_table"]  # type: ignore[index]
    finally:
        engine.dispose()


@pytest.mark.slow
def test_upgrade_is_idempotent_and_reversible(db_url: str) -> None:
    from alembic import command

    from mailbot.store.schema import alembic_config

    assert schema_revision(db_url) is None
    upgrade(db_url)
    upgrade(db_url)
    assert schema_revision(db_url) == "0018"
    engine = make_engine(db_url)
    try:
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), "base")
        assert schema_revision(engine) is None
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        upgrade(engine)
        assert schema_differences(engine) == []
    finally:
        engine.dispose()


@pytest.mark.slow
def test_upgrade_from_the_first_schema_keeps_the_mail(db_url: str) -> None:
    """0002 drops the uniqueness of Message-IDs and keeps every stored message."""
    upgrade(db_url, "0001")
    engine = make_engine(db_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                InboundMessage.__table__.insert(),
                [
                    {
                        "message_id": f"<{n}@example.org>",
                        "raw_sha256": f"{n:064d}",
                        "internaldate": NOW,
                        "raw": b"x",
                        "status": "processed",
                        "attempts": 0,
                        "created_at": NOW,
                    }
                    for n in (1, 2)
                ],
            )
        upgrade(engine)
        assert schema_revision(engine) == "0018"
        assert schema_differences(engine) == []
        with session_factory(engine).begin() as session:
            assert len(session.scalars(select(InboundMessage)).all()) == 2
            # the same Message-ID from someone else is another message now
            session.add(inbound(1, raw_sha256="f" * 64, from_addr="eve@example.net", uid=99))
    finally:
        engine.dispose()


@pytest.mark.slow
def test_upgrade_from_0002_keeps_the_tournaments_with_the_old_behaviour(db_url: str) -> None:
    """0003 adds a gender (none), 0004 forwarded words (on, as the contract's default) and
    digests (off). On SQLite both ways copy the players table, which the games point at."""
    upgrade(db_url)
    engine = make_engine(db_url)
    try:
        with session_factory(engine).begin() as session:
            import_start_list(session, parse_start_list(START_LIST), NOW)
        downgrade(engine, "0002")
        columns = {c["name"] for c in inspect(engine).get_columns("players")}
        assert "digest" not in columns and "gender" not in columns
        upgrade(engine)
        assert schema_revision(engine) == "0018"
        assert schema_differences(engine) == []
        with session_factory(engine)() as session:
            t = session.scalars(select(Tournament)).one()
            assert t.forward_messages is True and t.director_digest is False
            assert t.players and all(not p.digest and p.digest_sent_at is None and p.gender is None
                                     for p in t.players)  # fmt: skip
            assert len(t.games) == len(t.players) * (len(t.players) - 1)  # double round robin
    finally:
        engine.dispose()


WHITE, BLACK = "white@example.org", "black@example.org"


def test_0008_drops_the_unused_clock_columns_and_keeps_the_games_moves(db_url: str) -> None:
    """On SQLite, 0008 copies the games table, which the moves, claims and mail point
    at: a game played both ways across it keeps every move and its answers."""
    bench = Bench(db_url)  # at the newest revision
    try:
        for sender, text, hour in [(WHITE, "1. e2-e4", 9), (BLACK, "1... e7-e5", 10),
                                   (WHITE, "2. Ng1-f3", 11)]:  # fmt: skip
            bench.send(sender, text, datetime.datetime(2026, 3, 2, hour, tzinfo=UTC),
                       subject="[PX-1/1] move")  # fmt: skip
    finally:
        bench.close()
    engine = make_engine(db_url)
    try:
        downgrade(engine, "0007")
        with engine.connect() as connection:
            rows = connection.exec_driver_sql(
                "SELECT white_oversteps, black_count_start_move FROM games"
            ).all()
        assert [tuple(r) for r in rows] == [(0, 1), (0, 1)]
        upgrade(engine)
        assert schema_revision(engine) == "0018"
        assert schema_differences(engine) == []
        columns = {c["name"] for c in inspect(engine).get_columns("games")}
        assert not columns & {"white_oversteps", "black_count_start_move"}
        with session_factory(engine)() as session:
            game = session.scalars(select(Game).where(Game.number == 1)).one()
            assert [m.uci for m in game.moves] == ["e2e4", "e7e5", "g1f3"]
            assert len(session.scalars(select(Outbox).where(Outbox.game_id == game.id)).all()) == 6
    finally:
        engine.dispose()


def test_0014_keeps_the_held_orders_both_ways_and_what_they_answer(db_url: str) -> None:
    """0014 adds to each held order the bot's message it answered: orders held before it
    answer nothing the bot knows; going back drops the column and keeps the orders."""
    bench = Bench(db_url)  # at the newest revision
    try:
        bench.send(TD, "forfeit PX-1/1 black", NOW)  # no DMARC: held
        # a reply at the bot's plain address to its notice about PX-1/1: held
        bench.send("stranger@example.net", "What a game!", NOW, subject="[PX-1/1] kibitz")
        asked = bench.outbox()[-1]
        assert asked.headers["X-Mailbot-Game"] == "PX-1/1"
        bench.send(TD, "forfeit white", NOW, reply_to=asked, to=BOT)
    finally:
        bench.close()
    engine = make_engine(db_url)
    try:
        with session_factory(engine)() as session:
            rows = session.scalars(select(HeldOrder).order_by(HeldOrder.id)).all()
            assert [(h.orders, h.answered_id) for h in rows] == [
                (["forfeit PX-1/1 black"], None),
                (["forfeit white"], asked.id),
            ]
        downgrade(engine, "0013")
        assert "answered_id" not in {c["name"] for c in inspect(engine).get_columns("held_orders")}
        with engine.connect() as connection:
            orders = connection.exec_driver_sql("SELECT status FROM held_orders").all()
        assert [tuple(r) for r in orders] == [("held",), ("held",)]
        upgrade(engine)
        assert schema_revision(engine) == "0018"
        assert schema_differences(engine) == []
        with session_factory(engine)() as session:
            answered = session.scalars(select(HeldOrder.answered_id)).all()
            assert answered == [None, None]
    finally:
        engine.dispose()


def test_aware_datetimes_round_trip(sessions: sessionmaker[Session], tournament_id: int) -> None:
    nine_in_sofia = datetime.datetime(2026, 3, 5, 9, 30, 15, 123456, tzinfo=SOFIA)
    with sessions.begin() as session:
        session.add(inbound(1, internaldate=nine_in_sofia))
    with sessions() as session:
        stored = session.scalars(select(InboundMessage.internaldate)).one()
    assert stored == nine_in_sofia
    assert stored.utcoffset() == datetime.timedelta(0)
    assert stored.hour == 7


def test_instants_compare_across_zones(sessions: sessionmaker[Session]) -> None:
    with sessions.begin() as session:
        session.add(inbound(1, internaldate=datetime.datetime(2026, 3, 5, 10, tzinfo=UTC)))
    with sessions() as session:

        def count_before(instant: datetime.datetime) -> int:
            query = select(InboundMessage).where(InboundMessage.internaldate <= instant)
            return len(session.scalars(query).all())

        # 11:30 in Sofia is 09:30 UTC: before the message; 12:30 is after it.
        assert count_before(datetime.datetime(2026, 3, 5, 11, 30, tzinfo=SOFIA)) == 0
        assert count_before(datetime.datetime(2026, 3, 5, 12, 30, tzinfo=SOFIA)) == 1


def test_naive_datetimes_are_refused(sessions: sessionmaker[Session]) -> None:
    with pytest.raises(StatementError) as caught, sessions.begin() as session:
        session.add(inbound(1, internaldate=datetime.datetime(2026, 3, 5, 10)))
    assert isinstance(caught.value.orig, NaiveDatetimeError)


def test_import_start_list(sessions: sessionmaker[Session], tournament_id: int) -> None:
    with sessions() as session:
        t = session.get_one(Tournament, tournament_id)
        assert (t.index, t.profile, t.timezone) == ("BG-2026-E1", "bg-email", "Europe/Sofia")
        assert t.rules == {"penalty_days": 10}
        assert (t.start, t.end, t.extended_to) == (
            datetime.date(2026, 3, 1),
            datetime.date(2027, 6, 30),
            None,
        )
        assert (t.language, t.notation, t.conditional_moves) == ("bg", "bg-cyrillic", True)
        assert t.director_email == "td@federation.example"
        assert t.created_at == NOW
        assert [(p.key, p.language) for p in t.players] == [
            ("ivanov", None),
            ("petrov", "en"),
            ("popov", None),
            ("kolev", None),
        ]
        assert len(t.games) == 12
        first = t.games[0]
        assert (first.number, first.round, first.board) == (1, 1, 1)
        assert (first.white.key, first.black.key) == ("ivanov", "kolev")
        assert first.result is None and first.moves == []
        last = t.games[-1]
        assert (last.number, last.round, last.white.key, last.black.key) == (
            12,
            6,
            "ivanov",
            "popov",
        )


def test_import_refuses_an_existing_index(
    sessions: sessionmaker[Session], tournament_id: int
) -> None:
    refused = pytest.raises(DuplicateTournamentError, match="BG-2026-E1 already exists")
    with refused, sessions.begin() as session:
        import_start_list(session, parse_start_list(START_LIST), NOW)
    with sessions() as session:
        assert session.scalars(select(Tournament.index)).all() == ["BG-2026-E1"]


def _add(session: Session, *rows: object) -> None:
    session.add_all(rows)
    session.flush()


UniqueCase = Callable[[Session, int], None]


def _same_player_key(session: Session, t: int) -> None:
    _add(session, Player(tournament_id=t, key="ivanov", name="X", email="x@example.org"))


def _same_player_email(session: Session, t: int) -> None:
    _add(session, Player(tournament_id=t, key="x", name="X", email="ivanov@example.org"))


def _same_game_number(session: Session, t: int) -> None:
    g = session.scalars(select(Game).where(Game.number == 1)).one()
    _add(
        session,
        Game(tournament_id=t, number=1, white_id=g.black_id, black_id=g.white_id, created_at=NOW),
    )


def _same_ply(session: Session, t: int) -> None:
    g = session.scalars(select(Game).where(Game.number == 1)).one()
    for _ in range(2):
        _add(session, Move(game_id=g.id, ply=1, uci="e2e4", san="e4", text="e2-e4", sent_at=NOW))


def _same_fingerprint(session: Session, t: int) -> None:
    _add(session, inbound(1, fingerprint="a" * 64), inbound(2, fingerprint="a" * 64))


def _same_outbox_id(session: Session, t: int) -> None:
    rows = [
        Outbox(
            message_id="1.mailbot@federation.example",
            to_addrs=["a@example.org"],
            subject="s",
            text_body="b",
            event="move",
            next_attempt_at=NOW,
            created_at=NOW,
        )
        for _ in range(2)
    ]
    _add(session, *rows)


def _bad_result(session: Session, t: int) -> None:
    g = session.scalars(select(Game).where(Game.number == 1)).one()
    g.result = "won"
    session.flush()


def _unknown_player(session: Session, t: int) -> None:
    _add(session, Game(tournament_id=t, number=99, white_id=9999, black_id=9998, created_at=NOW))


UNIQUE_CASES: list[UniqueCase] = [
    _same_player_key,
    _same_player_email,
    _same_game_number,
    _same_ply,
    _same_fingerprint,
    _same_outbox_id,
    _bad_result,
    _unknown_player,
]


def test_two_messages_may_share_a_place_in_the_mailbox(sessions: sessionmaker[Session]) -> None:
    """A mailbox made anew may number new messages as old ones were (migration 0010)."""
    with sessions.begin() as session:
        _add(session, inbound(1), inbound(2, uid=1))
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(InboundMessage)) == 2


@pytest.mark.parametrize("case", UNIQUE_CASES, ids=[c.__name__.strip("_") for c in UNIQUE_CASES])
def test_constraints(sessions: sessionmaker[Session], tournament_id: int, case: UniqueCase) -> None:
    with pytest.raises(IntegrityError), sessions.begin() as session:
        case(session, tournament_id)


def test_raw_bytes_are_unique(sessions: sessionmaker[Session], tournament_id: int) -> None:
    with sessions.begin() as session:
        _add(session, inbound(1, message_id=None))
    with pytest.raises(IntegrityError), sessions.begin() as session:
        _add(session, inbound(2, message_id=None, raw_sha256=inbound(1).raw_sha256))


def test_messages_without_id_or_uid_can_coexist(
    sessions: sessionmaker[Session], tournament_id: int
) -> None:
    with sessions.begin() as session:
        for n in range(3):
            _add(session, inbound(n, message_id=None, folder=None, uidvalidity=None, uid=None))
    with sessions.begin() as session:
        _add(session, inbound(10, folder="INBOX", uidvalidity=8, uid=1))  # new UIDVALIDITY
        _add(session, inbound(11, folder="Other", uidvalidity=7, uid=1))
    with sessions() as session:
        assert len(session.scalars(select(InboundMessage)).all()) == 5


@pytest.mark.parametrize("scope", ["game", "player", "tournament"])
def test_notice_ledger_is_unique(
    sessions: sessionmaker[Session], tournament_id: int, scope: str
) -> None:
    with sessions() as session:
        game_id = session.scalars(select(Game.id).where(Game.number == 1)).one()
        player_id = session.scalars(select(Player.id).where(Player.key == "ivanov")).one()

    def notice(key: str) -> Notice:
        return Notice(
            tournament_id=tournament_id,
            game_id=game_id if scope == "game" else None,
            player_id=player_id if scope == "player" else None,
            kind="repeat",
            key=key,
            created_at=NOW,
        )

    with sessions.begin() as session:
        _add(session, notice("ply=1"), notice("ply=3"))
    with pytest.raises(IntegrityError), sessions.begin() as session:
        _add(session, notice("ply=1"))
    with sessions() as session:
        assert len(session.scalars(select(Notice)).all()) == 2


def test_a_notice_reads_back_as_its_kind(
    sessions: sessionmaker[Session], tournament_id: int
) -> None:
    with sessions.begin() as session:
        _add(session, Notice(tournament_id=tournament_id, kind="silence-report", key="4",
                             created_at=NOW))  # fmt: skip
    with sessions() as session:
        assert session.scalars(select(Notice.kind)).one() is NoticeKind.SILENCE_REPORT


@pytest.mark.parametrize("wrong", ["notice", "event"])
def test_a_kind_of_notice_or_mail_that_does_not_exist_is_refused_at_the_flush(
    sessions: sessionmaker[Session], tournament_id: int, wrong: str
) -> None:
    """A misspelt kind would be a new notice, sent a second time; a misspelt event, a
    header the contract does not know. The table has no constraint on either: the
    column refuses them before they are written."""
    row: Notice | Outbox
    if wrong == "notice":
        row = Notice(tournament_id=tournament_id, kind="silence_report", key="4", created_at=NOW)
    else:
        row = Outbox(message_id="9.mailbot@federation.example", to_addrs=["a@example.org"],
                     subject="s", text_body="t", event="moved", next_attempt_at=NOW,
                     created_at=NOW)  # fmt: skip
    with pytest.raises(StatementError) as caught, sessions.begin() as session:
        _add(session, row)
    assert isinstance(caught.value.orig, ValueError)
    with sessions() as session:
        assert session.scalars(select(Notice)).all() == []
        assert session.scalars(select(Outbox)).all() == []


def test_json_columns_round_trip(sessions: sessionmaker[Session], tournament_id: int) -> None:
    with sessions.begin() as session:
        game = session.scalars(select(Game).where(Game.number == 1)).one()
        game.pending_conditional = ["g8f6", "c1g5"]
        game.pending_conditional_by = "white"
        session.add(
            Outbox(
                message_id="2.mailbot@federation.example",
                to_addrs=["ivanov@example.org"],
                cc_addrs=["td@federation.example"],
                subject="[BG-2026-E1/1] Ivan Ivanov – Kolyo Kolev: move",
                headers={"X-Mailbot-Event": "move", "X-Mailbot-Ply": "1"},
                text_body="1. e2-e4",
                event=MailEvent.MOVE,
                game_id=game.id,
                next_attempt_at=NOW,
                created_at=NOW,
            )
        )
    with sessions() as session:
        game = session.scalars(select(Game).where(Game.number == 1)).one()
        assert game.pending_conditional == ["g8f6", "c1g5"]
        row = session.scalars(select(Outbox)).one()
        assert row.headers == {"X-Mailbot-Event": "move", "X-Mailbot-Ply": "1"}
        assert row.cc_addrs == ["td@federation.example"]
        assert row.subject.endswith("Kolyo Kolev: move")
        assert (row.status, row.attempts) == ("pending", 0)
        assert row.event is MailEvent.MOVE


def test_deleting_a_tournament_removes_its_rows(
    sessions: sessionmaker[Session], tournament_id: int
) -> None:
    with sessions.begin() as session:
        session.delete(session.get_one(Tournament, tournament_id))
    with sessions() as session:
        assert session.scalars(select(Game)).all() == []
        assert session.scalars(select(Player)).all() == []


def test_make_engine_and_helpers() -> None:
    assert make_engine("postgresql://u@h/d").dialect.driver == "psycopg"
    assert describe_url("postgresql+psycopg://u:pw@h/d") == "postgresql+psycopg://u:***@h/d"
    assert (migrations_directory() / "versions" / "0001_initial.py").is_file()


def with_one_answer(db_url: str) -> Engine:
    """The store at the newest revision with one row in the outbox (the answer to a
    stranger), and an engine on it."""
    bench = Bench(db_url)
    try:
        bench.send("stranger@example.net", "What a game!", NOW, subject="Hello")
    finally:
        bench.close()
    return make_engine(db_url)


def test_0015_keeps_the_mail_given_up_both_ways_and_what_was_dismissed(db_url: str) -> None:
    """0015 adds to each outbox row when it was dismissed: rows before it were dismissed
    by no one; going back drops the column and keeps the rows."""
    engine = with_one_answer(db_url)
    try:
        with session_factory(engine).begin() as session:
            (row,) = session.scalars(select(Outbox)).all()
            row.status = OutboxStatus.FAILED
            (dismissed,) = dismiss(session, row.id, NOW)
            assert dismissed.dismissed_at == NOW
        downgrade(engine, "0014")
        assert "dismissed_at" not in {c["name"] for c in inspect(engine).get_columns("outbox")}
        with engine.connect() as connection:
            kept = connection.exec_driver_sql("SELECT status, to_addrs FROM outbox").all()
        assert [r[0] for r in kept] == ["failed"] and "stranger@example.net" in str(kept[0][1])
        upgrade(engine)
        assert schema_revision(engine) == "0018"
        assert schema_differences(engine) == []
        with session_factory(engine)() as session:
            again = session.scalars(select(Outbox)).one()
            assert (again.status, again.dismissed_at) == ("failed", None)
    finally:
        engine.dispose()


def test_0017_gives_the_rows_before_it_no_files_and_every_player_the_pgn(db_url: str) -> None:
    """0017 adds the files of an outbox row (none for the rows before it) and whether a
    player wants the PGN (every player does until ``pgn off``); going back drops both
    columns and keeps the rows."""
    engine = with_one_answer(db_url)
    try:
        downgrade(engine, "0016")
        assert "attachments" not in {c["name"] for c in inspect(engine).get_columns("outbox")}
        assert "pgn" not in {c["name"] for c in inspect(engine).get_columns("players")}
        upgrade(engine)
        assert schema_revision(engine) == "0018"
        assert schema_differences(engine) == []
        with session_factory(engine)() as session:
            assert session.scalars(select(Outbox.attachments)).all() == [None]
            assert {p.pgn for p in session.scalars(select(Player))} == {True}
    finally:
        engine.dispose()


def test_0018_leaves_the_director_of_an_event_before_it_to_the_name(db_url: str) -> None:
    """0018 adds the director's gender: an event before it has none (the name tells
    it); going back drops the column and keeps the event."""
    engine = with_one_answer(db_url)
    try:
        with session_factory(engine)() as session:
            assert [t.director_gender for t in session.scalars(select(Tournament))] == [None]
        downgrade(engine, "0017")
        columns = {c["name"] for c in inspect(engine).get_columns("tournaments")}
        assert "director_gender" not in columns and "director_name" in columns
        upgrade(engine)
        assert schema_revision(engine) == "0018"
        assert schema_differences(engine) == []
        with session_factory(engine)() as session:
            names = [t.director_name for t in session.scalars(select(Tournament))]
            assert names == ["Tom Director"]
    finally:
        engine.dispose()
