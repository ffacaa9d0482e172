"""A game's mail: the contract's subject and headers, the summary the templates show,
who has a copy and which way the board faces the reader."""

from __future__ import annotations

import contextlib
import dataclasses
import email.utils
import functools
from typing import Any

import chess
from sqlalchemy.orm import object_session

from mailbot.mail.addresses import AddressError, smtp_address
from mailbot.mail.attachments import PGN_TYPE, Attachment, file_name
from mailbot.rules import pgn
from mailbot.rules.notation import Notation, write_move
from mailbot.store.kinds import MailEvent
from mailbot.store.models import Game, Player, Tournament
from mailbot.store.record import (
    board_of,
    control_of,
    language_for,
    notation_for,
    pgn_record,
    pgn_result,
    tag_of,
    totals,
)


def game_headers(g: Game, event: MailEvent, *, reply: bool = False) -> dict[str, str]:
    """``Auto-Submitted`` and the ``X-Mailbot-*`` headers of docs/contract.md for game ``g``."""
    sums = totals(g)
    headers = {
        "Auto-Submitted": "auto-replied" if reply else "auto-generated",
        "X-Mailbot-Event": event,
        "X-Mailbot-Game": tag_of(g),
        "X-Mailbot-Ply": str(len(g.moves)),
        "X-Mailbot-Time": f"white={sums.white}; black={sums.black}",
    }
    if g.moves:
        headers["X-Mailbot-Move"] = g.moves[-1].uci
    if g.result:
        headers["X-Mailbot-Result"] = pgn_result(g.result)
    return headers


def pgn_file(
    g: Game, reader: Player, sender: str, made: dict[str, tuple[Attachment, ...]] | None = None
) -> tuple[Attachment, ...]:
    """The game so far as the file ``INDEX-N.pgn`` a move mail carries to ``reader``
    (docs/contract.md, "Players' chess programs"): the tags of ``mailbot pgn``, the
    comments in the reader's language, and the tags of a program's e-mail mode with
    the bot's own address (:func:`mailbot.rules.pgn.mail_tags`); none after ``pgn off``.

    ``made`` keeps the files already written of ``g`` as it stands, by language: the
    mail to both players of one move reads the game and writes the file once when
    they read one language.
    """
    if not reader.pgn:
        return ()
    language = language_for(reader)
    if made is not None and language in made:
        return made[language]
    session = object_session(g)
    # the game's rows are in the session already: a batch writes at its end, not here
    with session.no_autoflush if session is not None else contextlib.nullcontext():
        record = pgn_record(g, lang=language)
    arbiter = _arbiter(sender)
    text = None
    if arbiter is not None:
        with contextlib.suppress(pgn.PgnExportError):
            text = pgn.export(dataclasses.replace(record, arbiter=arbiter))
    if text is None:
        text = pgn.export(record)  # an address no tag can hold: the file without it
    files = (Attachment(file_name(tag_of(g), ".pgn"), PGN_TYPE, text),)
    if made is not None:
        made[language] = files
    return files


@functools.lru_cache(maxsize=16)
def _arbiter(sender: str) -> str | None:
    """The bare address of ``sender`` for the PGN's mail tags, None if it has none a
    tag can hold (a configuration names one or two senders: each is read once)."""
    try:
        return smtp_address(email.utils.parseaddr(sender)[1], smtputf8=False)
    except AddressError:
        return None


def game_subject(g: Game, what: str) -> str:
    """``[INDEX/N] White – Black: <what happened>``."""
    return f"[{tag_of(g)}] {g.white.name} – {g.black.name}: {what}"


def game_summary(g: Game, me: Player | None = None) -> dict[str, Any]:
    """A game as the templates show it, ``last`` in the reader's notation."""
    sums = totals(g)
    to_move = g.white if len(g.moves) % 2 == 0 else g.black
    last: str | None = None
    if g.moves:
        board = board_of(g, stack=1)
        move = board.pop()
        style = notation_for(me) if me is not None else Notation(g.tournament.notation)
        last = write_move(board, move, style)
    mine = me is not None and me.id in (g.white_id, g.black_id)
    control = None
    if mine and g.result is None and me is not None:
        state = control_of(g, chess.WHITE if me.id == g.white_id else chess.BLACK)
        control = {"used": state.used_days, "limit": state.limit_days,
                   "control_move": state.next_control_move, "left": state.days_left}  # fmt: skip
    return {
        "tag": tag_of(g),
        "white": g.white.name,
        "black": g.black.name,
        "result": pgn_result(g.result) if g.result else None,
        "ply": len(g.moves),
        "move_number": len(g.moves) // 2 + 1,
        "turn": "white" if len(g.moves) % 2 == 0 else "black",
        "to_move": to_move.name,
        "white_total": sums.white,
        "black_total": sums.black,
        "last": last,
        "your_move": me is not None and g.result is None and to_move.id == me.id,
        #: The reader's own clock: days used and left to the next control.
        "control": control,
    }


def director_of(t: Tournament) -> dict[str, Any]:
    """Who a mail means by "the tournament director": the director's name, and the
    gender Bulgarian and Russian agree with: the start list's, else (None) the one
    the name tells, as for a player (:func:`mailbot.compose.grammar.with_genders`)."""
    return {"director": t.director_name, "director_gender": t.director_gender}


def director_reading(t: Tournament) -> dict[str, Any]:
    """The director as the reader of a mail: the name it greets, in the gender of
    :func:`director_of`."""
    return {"recipient": t.director_name, "gender": t.director_gender}


def captains_of(g: Game) -> list[str]:
    """The addresses of the captains of the teams that play ``g`` (none outside team events)."""
    captains = (p.team.captain_email for p in (g.white, g.black) if p.team is not None)
    return list(dict.fromkeys(c for c in captains if c and c != g.tournament.director_email))


def orientation(g: Game, player: Player | None) -> chess.Color:
    """The side of the board the reader sees at the bottom: Black's player, Black; anyone
    else (White's player, the director), White."""
    return chess.BLACK if player is not None and player.id == g.black_id else chess.WHITE
