"""A batch of messages is answered exactly as the same messages one at a time.

A backlog is handled fifty messages to a transaction (:meth:`Desk.receive_all`).
A batch reads what it needs of the database for all its messages at once
(the games, their latest mail, the senders' players, directed tournaments
and reply counts), and within it what one message wrote is read by the next
from memory: the game's moves, the mail of the game (its thread), the day's
reply counts, and a director's change of an address. So the same messages
handled in two batches and handled one at a time, each in its own
transaction, must leave the same games, the same records and the same
answers: texts, recipients and threads. The batch
runs on the store under test (SQLite, or PostgreSQL with
``MAILBOT_TEST_STORE=postgresql``); the messages one at a time on an SQLite
file of their own.
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import re
from pathlib import Path

import pytest
from deskbench import TD, Bench, at
from sqlalchemy import select
from test_roster import BELLA, BLACK, DMARC, GREY, IVAN, START, WHITE

from mailbot.compose.catalogue import say_kept
from mailbot.desk.pipeline import Outcome
from mailbot.mail.inbox import Fetched
from mailbot.store.models import Game, InboundMessage, Move, Tournament

STRANGER = "eve@example.net"


def reason_of(row: InboundMessage) -> str:
    """Why the bot did not act on a message, as the logs and the quarantine list say it."""
    return say_kept("en", row.reason_phrase, row.reason)


def _messages(bench: Bench) -> list[bytes]:
    """A game played within the batch, a copy, a stranger twice, the director moving
    Black to her other address, Black's old and new address, a second game, and
    White's fourth message of the day."""
    game1, game2 = "[RO-1/1] move", "[RO-1/2] move"
    black_move = bench.message(BLACK, "1... e7-e5", subject=game1, headers=DMARC)
    return [
        bench.message(WHITE, "1. e2-e4", subject=game1, headers=DMARC),
        black_move,
        bench.message(WHITE, "2. g1-f3", subject=game1, headers=DMARC),
        black_move,  # the same bytes again, at another UID
        bench.message(STRANGER, "1. d2-d4", subject=game2, headers=DMARC),
        bench.message(STRANGER, "hello?", subject=game2, headers=DMARC),
        bench.message(TD, "address black bella@home.example", headers=DMARC),
        bench.message(BLACK, "2... b8-c6", subject=game1, headers=DMARC),
        bench.message(BELLA, "2... b8-c6", subject=game1, headers=DMARC),
        bench.message(GREY, "1. d2-d4", subject=game2, headers=DMARC),
        bench.message(IVAN, "1... Кg8-f6", subject="[RO-1/2] ход", headers=DMARC),
        bench.message(GREY, "2. c2-c4", subject=game2, headers=DMARC),
        bench.message(WHITE, "3. f1-b5", subject=game1, headers=DMARC),
        bench.message(WHITE, "status", subject=game1, headers=DMARC),  # over the cap of 3
    ]


def _fetched(raws: list[bytes]) -> list[Fetched]:
    return [
        Fetched("INBOX", 7, uid, raw, at(2, 8) + datetime.timedelta(minutes=uid))
        for uid, raw in enumerate(raws, 1)
    ]


_ID = re.compile(r"<([^<>]+)>")
_KEY = re.compile(r"\+o-[a-z2-7]{26}@")


def _what_happened(bench: Bench) -> dict[str, object]:
    """The games, the messages' records and the answers, with each Message-ID of the
    bot's own replaced by what its answer is, and each order key (random) by ``KEY``.
    The answers are in a fixed order: a batch queues the notices to readers who wrote
    none of its messages at its end, where they can go as one."""
    rows = sorted(bench.outbox(), key=lambda r: (r.event, r.to_addrs, r.subject))
    place = {row.message_id: f"answer {row.event} {row.to_addrs} {row.subject}" for row in rows}

    def names(value: str) -> str:
        value = _KEY.sub("+o-KEY@", value)
        return _ID.sub(lambda m: f"<{place.get(m.group(1), m.group(1))}>", value)

    with bench.sessions() as session:
        games = {
            g.number: ([m.uci for m in g.moves], [m.inbound_id is not None for m in g.moves])
            for g in session.scalars(select(Game).join(Tournament).order_by(Game.number))
        }
        moves = len(session.scalars(select(Move)).all())
    return {
        "games": games,
        "moves": moves,
        "inbound": [(r.uid, r.status, r.reason, r.game_id) for r in bench.inbound()],
        "answers": [
            (
                r.event,
                r.to_addrs,
                r.cc_addrs,
                r.subject,
                r.text_body,
                {k: names(v) for k, v in r.headers.items()},
            )
            for r in rows
        ],
    }


def test_a_batch_is_answered_as_its_messages_one_at_a_time(
    store_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    now = at(2, 12)
    single = Bench(
        f"sqlite:///{tmp_path / 'one-at-a-time.db'}", START, authserv_id="mx.federation.example"
    )
    batch = Bench(store_url, START, authserv_id="mx.federation.example")
    for bench in (single, batch):
        bench.desk.policy = dataclasses.replace(bench.desk.policy, replies_per_sender_per_day=3)
    try:
        fetched = _fetched(_messages(single))
        alone = [single.desk.receive(f, now) for f in fetched]
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="mailbot.desk.pipeline"):
            # two batches: the second reads what the first wrote from the database
            together = [
                *batch.desk.receive_all(fetched[:5], now),
                *batch.desk.receive_all(fetched[5:], now),
            ]

        # one transaction a batch: none rolled back and handled one at a time
        assert not [r for r in caplog.records if "rolled back" in r.getMessage()]
        assert together == alone
        assert together[3] is Outcome.DUPLICATE
        expected = _what_happened(single)
        assert expected["games"] == {
            1: (["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"], [True] * 5),
            2: (["d2d4", "g8f6", "c2c4"], [True] * 3),
            3: ([], []),
        }
        got = _what_happened(batch)
        assert got["games"] == expected["games"]
        assert got["inbound"] == expected["inbound"]
        assert len(got["answers"]) == len(expected["answers"])  # type: ignore[arg-type]
        for mine, theirs in zip(got["answers"], expected["answers"], strict=True):  # type: ignore[call-overload]
            assert mine == theirs
        # the thread is kept within the batch: White's answer to Black's first move
        # replies to the bot's confirmation of White's own, queued in the same batch
        answers = batch.outbox(WHITE, "move")
        assert answers and answers[0].headers["In-Reply-To"] == (
            f"<{batch.outbox(WHITE, 'move-accepted')[0].message_id}>"
        )
        # the stranger is answered once a day, however many messages one batch holds
        assert len(batch.outbox(STRANGER)) == 1
        # White's fourth message of the day is past the cap: recorded, not answered
        assert [reason_of(r) for r in batch.inbound() if r.uid == len(fetched)] == [
            "reply cap reached for the day"
        ]
        # ... and its answer is the one the cap lets through once a day: that the bot
        # answers White no more before the next day
        answered = [r for r in batch.outbox(WHITE) if r.event != "move"]
        assert [r.subject for r in answered][-1:] == ["No more answers today"]
        assert len(answered) == 4
    finally:
        single.close()
        batch.close()
