"""The tournament director's orders, by e-mail or on the command line.

An order is one line: a verb, then what it applies to. Verbs in English,
Bulgarian or Russian::

    confirm                       (in a reply to a claim: record the loss)
    reject                        (in a reply to a claim: play goes on)
    penalty BG-2026-E1/3 white 5  (art. 56: add 5 or 10 days)
    overstep BG-2026-E1/3 black   (art. 56: award a first overstep)
    forfeit BG-2026-E1/3 black    (the colour that loses)
    leave ivanov 30 2026          (art. 43: extra leave days for a year)
    extend BG-2026-E1 2027-12-31  (art. 50)
    result BG-2026-E1/3 1/2-1/2   (art. 53-55: adjudicated result)
    withdraw ivanov valid         (docs/rules.md 6; "valid" if the reason is valid)
    address ivanov ivan@mail.example   (the player's address from now on)
    rename ivanov Ivan Ivanov-Petrov   (the player's name as mail and the PGN show it)
    replace ivanov popov "Pavel Popov" popov@example.org
                                  (003 part 1 art. 9: a new player takes over the
                                  unfinished games with their positions and clocks)

In a reply to the bot's message about one game (a claim's packet, a notice) the
game may be left out of ``penalty``, ``overstep``, ``forfeit`` and ``result``
(:data:`GAME_FROM_THREAD`).

>>> order = read_order("penalty BG-2026-E1/3 black 10")
>>> order.verb, order.game, order.color, order.days
(<Verb.PENALTY: 'penalty'>, 'BG-2026-E1/3', 'black', 10)
>>> read_order("forfeit black").game is None
True
>>> read_order("потвърждавам").verb
<Verb.CONFIRM: 'confirm'>
>>> read_order("good morning") is None
True
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import re
from collections.abc import Callable, Sequence
from typing import Any
from zoneinfo import ZoneInfo

import chess
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from mailbot.compose import catalogue
from mailbot.desk.deadlines import void_wait_notices
from mailbot.desk.work import Work
from mailbot.mail.addresses import AddressError, check_address
from mailbot.rules import events as ev
from mailbot.rules import game
from mailbot.rules.errors import DeskError
from mailbot.rules.leave import parse_date
from mailbot.rules.phrase import Phrase
from mailbot.rules.result import Colour
from mailbot.store import decisions, roster
from mailbot.store.endings import claim_end, end_game
from mailbot.store.engine import held_back, pending, recent
from mailbot.store.kinds import ClaimDecider, ClaimKind, ClaimState, PenaltyDecider, PenaltyReason
from mailbot.store.models import (
    Claim,
    Game,
    Player,
    Tournament,
)
from mailbot.store.penalties import impose_penalty
from mailbot.store.queries import is_director
from mailbot.store.record import color_of, control_of, profile_of, tag_of


class Verb(enum.StrEnum):
    """A director's order verb; its value is the English word, as mail and the phrases
    name it (``verb.penalty``).

    >>> Verb.PENALTY == "penalty", f"{Verb.PENALTY}"
    (True, 'penalty')
    """

    CONFIRM = "confirm"
    REJECT = "reject"
    PENALTY = "penalty"
    OVERSTEP = "overstep"
    FORFEIT = "forfeit"
    LEAVE = "leave"
    EXTEND = "extend"
    RESULT = "result"
    WITHDRAW = "withdraw"
    ADDRESS = "address"
    RENAME = "rename"
    REPLACE = "replace"


#: The spellings of each verb, in English, Bulgarian and Russian.
VERBS: dict[Verb, tuple[str, ...]] = {
    Verb.CONFIRM: ("confirm", "confirmed", "потвърждавам", "подтверждаю"),
    Verb.REJECT: ("reject", "rejected", "отхвърлям", "отвергаю"),
    Verb.PENALTY: ("penalty", "наказание", "штраф"),
    Verb.OVERSTEP: ("overstep", "просрочка"),
    Verb.FORFEIT: ("forfeit", "служебна", "поражение"),
    Verb.LEAVE: ("leave", "отпуск"),
    Verb.EXTEND: ("extend", "удължавам", "продлеваю"),
    Verb.RESULT: ("result", "резултат", "результат"),
    Verb.WITHDRAW: ("withdraw", "оттегляне", "выбывание"),
    Verb.ADDRESS: ("address", "адрес"),
    Verb.RENAME: ("rename", "преименуване", "переименование"),
    Verb.REPLACE: ("replace", "замяна", "замена"),
}
#: The verbs whose game may be left out in a reply to the bot's message about one game
#: (a claim's packet, a notice): the game is that message's.
GAME_FROM_THREAD = frozenset({Verb.PENALTY, Verb.OVERSTEP, Verb.FORFEIT, Verb.RESULT})
#: The verbs only the director may use (``leave`` is a player's word too).
DIRECTOR_ONLY = frozenset(VERBS) - {Verb.LEAVE}

_COLORS = {
    "white": "white", "w": "white", "бели": "white", "белите": "white", "белые": "white",
    "black": "black", "b": "black", "черни": "black", "черните": "black", "черные": "black",
    "чёрные": "black",
}  # fmt: skip
_RESULTS = {
    "1-0": "1-0",
    "0-1": "0-1",
    "1/2-1/2": "1/2-1/2",
    "½-½": "1/2-1/2",
    "0.5-0.5": "1/2-1/2",
}
#: The verbs whose first argument names a player (or, for ``extend``, a tournament).
_NAMED_FIRST = frozenset({Verb.LEAVE, Verb.EXTEND, Verb.WITHDRAW})
_GAME = re.compile(r"^\[?([\w.\-]+/\d+)\]?$")
_INDEX = re.compile(r"^[\w.\-]+$")


class OrderError(DeskError, ValueError):
    """An order the bot cannot carry out; ``phrase`` says why, in the TD's language."""

    def __init__(self, code: str, **details: object) -> None:
        self.phrase = Phrase(f"order.error.{code}", details)
        super().__init__(catalogue.say("en", self.phrase))


@dataclasses.dataclass(frozen=True)
class Order:
    """One parsed order."""

    verb: Verb
    game: str | None = None
    color: str | None = None
    days: int | None = None
    result: str | None = None
    player: str | None = None
    day: datetime.date | None = None
    valid: bool = False
    #: Roster orders: the new address, the new name, the newcomer's id.
    email: str | None = None
    name: str | None = None
    newcomer: str | None = None


def _verb(word: str) -> Verb | None:
    low = word.casefold().strip(".,:;!")
    return next((v for v, spellings in VERBS.items() if low in spellings), None)


def order_verb(line: str) -> Verb | None:
    """The order verb a line starts with, if any (without checking the rest).

    >>> order_verb("Forfeit BG-1/2 white"), order_verb("Good game!")
    (<Verb.FORFEIT: 'forfeit'>, None)
    """
    words = line.split()
    return _verb(words[0]) if words else None


def read_order(line: str) -> Order | None:
    """The order on ``line``, or None when the line is no order.

    Raises :class:`OrderError` for an order verb with wrong arguments.
    """
    words = line.split()
    if not words:
        return None
    verb = _verb(words[0])
    if verb is None:
        return None
    rest = words[1:]
    if verb in _ROSTER:
        return _roster_order(verb, rest)
    fields: dict[str, Any] = {"verb": verb}
    first = rest[0].strip(".,;") if rest else ""
    if verb in _NAMED_FIRST and _INDEX.match(first) and not re.fullmatch(r"[\d.\-]+", first):
        # "leave white 30 2026": the player's id comes first, even when it reads as a colour
        fields["player"] = first
        rest = rest[1:]
    for word in rest:
        low = word.casefold().strip(".,;")
        if _GAME.match(word.strip(".,;")):
            fields["game"] = _GAME.match(word.strip(".,;")).group(1)  # type: ignore[union-attr]
        elif low in _COLORS:
            fields["color"] = _COLORS[low]
        elif low in _RESULTS:
            fields["result"] = _RESULTS[low]
        elif low in ("valid", "валидна", "уважительная", "уважительной"):
            fields["valid"] = True
        elif re.fullmatch(r"\d{1,3}", low) and "days" not in fields:
            fields["days"] = int(low)
        elif re.fullmatch(r"\d{4}", low):
            fields["day"] = datetime.date(int(low), 1, 1)
        elif re.fullmatch(r"[\d.\-]{8,10}", low):
            try:
                fields["day"] = parse_date(low)
            except ValueError:
                raise OrderError("bad-date", verb=verb, value=word) from None
        elif _INDEX.match(low):
            fields.setdefault("player", word.strip(".,;"))
    order = Order(**fields)
    _check(order)
    return order


_ROSTER = frozenset({Verb.ADDRESS, Verb.RENAME, Verb.REPLACE})


def _roster_order(verb: Verb, words: list[str]) -> Order:
    """``address ID EMAIL``, ``rename ID NAME``, ``replace ID NEW-ID "NAME" EMAIL``.

    >>> o = _roster_order(Verb.REPLACE, ["ivanov", "popov", '"Pavel', 'Popov"', "p@example.org"])
    >>> o.player, o.newcomer, o.name, o.email
    ('ivanov', 'popov', 'Pavel Popov', 'p@example.org')
    """
    fields: dict[str, Any] = {"verb": verb}
    if words and _INDEX.match(words[0]):
        fields["player"] = words[0]
        words = words[1:]
    if verb is Verb.REPLACE and words and _INDEX.match(words[0]):
        fields["newcomer"] = words[0]
        words = words[1:]
    if verb in (Verb.ADDRESS, Verb.REPLACE) and words and "@" in words[-1]:
        fields["email"] = words[-1].strip("<>,;")
        words = words[:-1]
    if verb in (Verb.RENAME, Verb.REPLACE):
        name = " ".join(words).strip().strip('"“”„«»').strip()
        if name:
            fields["name"] = name
    order = Order(**fields)
    _check(order)
    return order


def _check(order: Order) -> None:
    need: dict[Verb, tuple[str, ...]] = {
        Verb.PENALTY: ("color", "days"),  # the game may come from the message answered
        Verb.OVERSTEP: ("color",),
        Verb.FORFEIT: ("color",),
        Verb.LEAVE: ("player", "days"),
        Verb.EXTEND: ("player", "day"),
        Verb.RESULT: ("result",),
        Verb.WITHDRAW: ("player",),
        Verb.ADDRESS: ("player", "email"),
        Verb.RENAME: ("player", "name"),
        Verb.REPLACE: ("player", "newcomer", "name", "email"),
    }
    missing = [f for f in need.get(order.verb, ()) if getattr(order, f) in (None, "")]
    if missing:
        raise OrderError("missing", verb=order.verb, fields=", ".join(missing))
    if order.verb is Verb.PENALTY and order.days not in (5, 10):
        raise OrderError("penalty-days")


def read_orders(body: str) -> list[Order]:
    """Every order in a message body, one per line."""
    orders: list[Order] = []
    for line in body.splitlines():
        order = read_order(line.strip())
        if order is not None:
            orders.append(order)
    return orders


class Office(Work):
    """An order's work: the director's tournaments are where it may act."""

    def __init__(self, work: Work, tournaments: Sequence[Tournament]) -> None:
        super().__init__(work.session, work.now, work.inbound_id, work.events)
        self.tournaments = tournaments


def _game(desk: Office, tag: str | None) -> Game:
    if tag is None:
        raise OrderError("name-game")
    index, _, number = tag.rpartition("/")
    for t in desk.tournaments:
        if t.index == index:
            g = next((g for g in t.games if g.number == int(number)), None)
            if g is not None:
                return g
    raise OrderError("no-game", game=tag)


def _player(desk: Office, key: str | None) -> Player:
    for t in desk.tournaments:
        for p in t.players:
            if key in (p.key, p.email):
                return p
    raise OrderError("no-player", player=key)


def _inform(desk: Office, g: Game, code: str, **details: object) -> None:
    """Tell both players what the director decided."""
    desk.tell(ev.DirectorDecided(g.id, Phrase(f"decision.{code}", details)))


#: What carries out an order: the order's work, the order, the claim it answers.
Action = Callable[[Office, Order, "Claim | None"], Phrase]


def carry_out(
    work: Work, tournaments: Sequence[Tournament], order: Order, claim: Claim | None = None
) -> Phrase:
    """Carry out ``order`` in the director's ``tournaments``; returns what was done, for
    the TD's answer. What the players must hear is told to ``work``.

    Raises :class:`OrderError` for an order that cannot be carried out.
    """
    action = _ACTIONS.get(order.verb)
    if action is None:
        raise OrderError("unknown-order", verb=order.verb)
    return action(Office(work, tournaments), order, claim)


def _decide(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    if claim is None and order.game:
        g = _game(desk, order.game)
        claim = next((c for c in reversed(g.claims) if c.status == ClaimState.OPEN), None)
    if claim is None:
        raise OrderError("which-claim", verb=order.verb)
    return decide(desk, _own(desk, claim), confirm=order.verb is Verb.CONFIRM)


def _penalty(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    g = _game(desk, order.game)
    _open(g)
    assert order.color is not None and order.days is not None
    impose_penalty(g, order.color, order.days, PenaltyReason.TD, desk.now,
                   decided_by=PenaltyDecider.TD, inbound_id=desk.inbound_id)  # fmt: skip
    _inform(desk, g, "penalty", days=order.days, colour=order.color)
    return Phrase("order.penalty", {"days": order.days, "colour": order.color, "game": tag_of(g)})


def _overstep(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    g = _game(desk, order.game)
    _open(g)
    # the overstep is the player's last move; the new count starts with the next
    # (art. 30, and 003 part 1 art. 7e: the new control applies at once)
    color = chess.WHITE if order.color == "white" else chess.BLACK
    parity = 1 if color == chess.WHITE else 0
    move_number = max(1, sum(1 for m in g.moves if m.ply % 2 == parity))
    assert order.color is not None
    decisions.award_overstep(desk.session, g, order.color, move_number, desk.now,
                             desk.inbound_id)  # fmt: skip
    details = {"colour": order.color, "game": tag_of(g)}
    if control_of(g, color).lost:
        # e-mail play has one overstep (art. 29); a second one loses (art. 28)
        name = g.white.name if color == chess.WHITE else g.black.name
        end = game.forfeit(
            color, game.Termination.TIME_FORFEIT, f"{name} overstepped the time limit"
        )
        desk.tell(end_game(g, end, desk.now))
        return Phrase("order.overstep-loses", {**details, "result": end.result})
    counts = {"move": move_number, "next": move_number + 1}
    _inform(desk, g, "overstep", colour=order.color, **counts)
    return Phrase("order.overstep-first", {**details, **counts})


def _forfeit(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    g = _game(desk, order.game)
    _open(g)
    loser = chess.WHITE if order.color == "white" else chess.BLACK
    end = game.forfeit(loser, game.Termination.FORFEIT, "forfeited by the director")
    desk.tell(end_game(g, end, desk.now))
    return Phrase("order.forfeit", {"game": tag_of(g), "colour": order.color, "result": end.result})


def _result(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    # in a reply to the adjudication packet the game is the packet's
    if order.game is None and claim is not None:
        g = _own(desk, claim).game
    else:
        g = _game(desk, order.game)
    _open(g)
    assert order.result is not None
    end = game.adjudicate(order.result, reason=f"adjudicated {order.result}")
    for c in g.claims:
        if c.kind == ClaimKind.ADJUDICATION and c.status == ClaimState.OPEN:
            decisions.decide_claim(c, ClaimState.CONFIRMED, desk.now, ClaimDecider.TD)
    desk.tell(end_game(g, end, desk.now))
    return Phrase("order.result", {"game": tag_of(g), "result": order.result})


def _leave(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    player = _player(desk, order.player)
    year = order.day.year if order.day else desk.now.year
    assert order.days is not None
    roster.grant_extra_leave(desk.session, player, year, order.days, desk.now, desk.inbound_id)
    _tell_extra_leave(desk, player, order.days, year)
    return Phrase("order.leave-extra", {"days": order.days, "player": player.name, "year": year})


def _extend(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    return extend(desk, order.player or "", order.day)


def _withdraw(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    return withdraw(desk, _player(desk, order.player), valid=order.valid)


def _new_address(desk: Office, t: Tournament, given: str | None, owner: Player | None) -> str:
    """``given`` in its normal form, when no one else in ``t`` writes from it."""
    try:
        address = check_address(given or "", special_use=True)
    except AddressError:
        raise OrderError("bad-address", address=given) from None
    for p in t.players:
        if p is not owner and p.writes_from(address):
            raise OrderError("address-taken", address=address, player=p.key)
    if address == t.director_email:
        raise OrderError("address-taken", address=address, player=t.director_name)
    return address


def _address(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    """The player's address from now on; mail still waiting goes there too (a TD changes
    an address because mail to the old one bounces)."""
    player = _player(desk, order.player)
    address = _new_address(desk, player.tournament, order.email, player)
    before = roster.change_address(desk.session, player, address, desk.now)
    desk.tell(ev.PlayerChanged(player.id, "address", before))
    return Phrase("order.address", {"player": player.name, "address": player.email})


def _rename(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    player = _player(desk, order.player)
    before = player.name
    assert order.name is not None
    roster.rename_player(player, order.name)
    desk.tell(ev.PlayerChanged(player.id, "name", before))
    return Phrase("order.rename", {"before": before, "player": player.name})


def _replace(desk: Office, order: Order, claim: Claim | None) -> Phrase:
    """003 part 1 art. 9: the newcomer takes over the unfinished games as they stand;
    the games already finished keep their player and count for the newcomer's place."""
    old = _player(desk, order.player)
    t = old.tournament
    if old.replaced_by_id is not None:
        raise OrderError("already-replaced", player=old.key)
    assert order.newcomer is not None and order.name is not None
    if not _KEY.match(order.newcomer) or any(p.key == order.newcomer for p in t.players):
        raise OrderError("key-taken", player=order.newcomer)
    email = _new_address(desk, t, order.email, None)
    newcomer = roster.enrol_newcomer(desk.session, t, old, order.newcomer, order.name, email)
    games = [g for g in t.games if old.id in (g.white_id, g.black_id) and g.result is None]
    plain = not any(m for g in games for m in g.moves if (m.ply % 2 == 1) == (g.white_id == old.id))
    roster.replace_player(desk.session, old, newcomer, games)
    desk.tell(ev.PlayerReplaced(old.id, newcomer.id, tuple(g.id for g in games), plain))
    return Phrase(
        "order.replace",
        {"player": old.name, "newcomer": newcomer.name, "games": len(games)},
    )


_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


#: What carries out each verb.
_ACTIONS: dict[Verb, Action] = {
    Verb.CONFIRM: _decide,
    Verb.REJECT: _decide,
    Verb.PENALTY: _penalty,
    Verb.OVERSTEP: _overstep,
    Verb.FORFEIT: _forfeit,
    Verb.RESULT: _result,
    Verb.LEAVE: _leave,
    Verb.EXTEND: _extend,
    Verb.WITHDRAW: _withdraw,
    Verb.ADDRESS: _address,
    Verb.RENAME: _rename,
    Verb.REPLACE: _replace,
}


def _tell_extra_leave(desk: Office, player: Player, days: int, year: int) -> None:
    """The player hears of the extra leave, in their current game (else their last)."""
    t = player.tournament
    games = sorted(
        (g for g in t.games if player.id in (g.white_id, g.black_id)),
        key=lambda g: (g.result is None, g.number),
    )
    if games:
        desk.tell(ev.ExtraLeave(games[-1].id, player.id, days, year))


def _own(desk: Office, claim: Claim) -> Claim:
    """``claim``, when it belongs to one of the director's tournaments."""
    if all(claim.game.tournament_id != t.id for t in desk.tournaments):
        raise OrderError("not-yours", game=tag_of(claim.game))
    return claim


def _open(g: Game) -> None:
    if g.result is not None:
        raise OrderError("finished", game=tag_of(g), result=g.result)


def decide(desk: Office, claim: Claim, *, confirm: bool) -> Phrase:
    """The TD's decision on an open claim (art. 37)."""
    g = claim.game
    if claim.status != ClaimState.OPEN:
        raise OrderError("decided", game=tag_of(g))
    if claim.kind == ClaimKind.COMPLAINT:
        return _complaint(desk, claim, upheld=confirm)
    state = ClaimState.CONFIRMED if confirm else ClaimState.REJECTED
    decisions.decide_claim(claim, state, desk.now, ClaimDecider.TD)
    if not confirm:
        _inform(desk, g, f"claim-rejected.{claim.kind}")
        return Phrase(f"order.claim-rejected.{claim.kind}", {"game": tag_of(g)})
    if claim.kind in (ClaimKind.SILENCE, ClaimKind.OVERSTEP) and (
        claim.details.get("decisive") or claim.details.get("loses")
    ):
        end = claim_end(g, claim)
        desk.tell(end_game(g, end, desk.now))
        details = {"game": tag_of(g), "colour": claim.against, "result": end.result}
        return Phrase(f"order.claim-loss.{end.termination.value}", details)
    if claim.kind == ClaimKind.TABLEBASE:
        won = "1-0" if claim.by_color == Colour.WHITE else "0-1"
        end = game.adjudicate(
            won,
            termination=game.Termination.TABLEBASE,
            reason="a win by the tablebases, claimed and upheld (003 part 1 art. 11b)",
        )
        desk.tell(end_game(g, end, desk.now))
        return Phrase("order.tablebase-upheld", {"game": tag_of(g), "result": won})
    if claim.kind == ClaimKind.DRAW:
        end = game.adjudicate(
            "1/2-1/2", termination=game.Termination.TABLEBASE, reason="draw claim upheld"
        )
        desk.tell(end_game(g, end, desk.now))
        return Phrase("order.draw-upheld", {"game": tag_of(g)})
    _inform(desk, g, f"claim-confirmed.{claim.kind}")
    return Phrase(f"order.claim-confirmed.{claim.kind}", {"game": tag_of(g)})


def _complaint(desk: Office, claim: Claim, *, upheld: bool) -> Phrase:
    """A player's complaint about a move: upheld, art. 20; groundless, art. 22."""
    g = claim.game
    _open(g)
    days = profile_of(g.tournament).penalty_days
    ply, move = int(claim.details["ply"]), str(claim.details.get("move", ""))
    complainer = str(claim.by_color)
    details: dict[str, Any] = {"game": tag_of(g), "move": move, "days": days}
    if upheld and ply > len(g.moves):
        raise OrderError("complaint-replayed", game=tag_of(g), move=move)
    state = ClaimState.CONFIRMED if upheld else ClaimState.REJECTED
    decisions.decide_claim(claim, state, desk.now, ClaimDecider.TD)
    if not upheld:
        if days:
            reason = PenaltyReason.GROUNDLESS_COMPLAINT
            impose_penalty(g, complainer, days, reason, desk.now,
                           decided_by=PenaltyDecider.TD, inbound_id=desk.inbound_id)  # fmt: skip
        _inform(desk, g, "complaint-groundless", colour=complainer, **details)
        return Phrase("order.complaint-groundless", {**details, "colour": complainer})
    decisions.note_on_claim(claim, replay_from(desk, g, ply, days, claim_id=claim.id))
    colour = "white" if ply % 2 == 1 else "black"
    _inform(desk, g, "complaint-upheld", colour=colour, **details)
    return Phrase("order.complaint-upheld", {**details, "colour": colour})


def replay_from(desk: Office, g: Game, ply: int, days: int, *, claim_id: int) -> dict[str, Any]:
    """Art. 20: a move found impossible or incorrect only later.

    The game goes back to the position before the move at ``ply``: that move
    and every one after it are void, and with them their days and the
    penalties imposed after it, so the totals are what they were before it;
    then each player gets ``days`` more. The player who made the move plays it
    anew, their clock running from now (the decision hands them the position
    again), and is repeated and reported silent as for any move to answer:
    the notices of the waits from that position on are void too. Returns what
    was voided, for the record of the claim.
    """
    void = [m for m in g.moves if m.ply >= ply]
    later = [p for p in g.penalties if p.ply_at >= ply]
    record = {
        "voided": [m.uci for m in void],
        "voided_penalties": [[p.color, p.days, p.reason] for p in later],
        "voided_notices": void_wait_notices(desk.session, g, ply - 1, f"claim {claim_id}"),
        **decisions.take_back_moves(g, ply, desk.now),
    }
    if days:
        for colour in ("white", "black"):
            impose_penalty(g, colour, days, PenaltyReason.ART_20, desk.now, ply_at=ply - 1,
                           decided_by=PenaltyDecider.TD, inbound_id=desk.inbound_id)  # fmt: skip
    return record


def extend(desk: Office, index: str, day: datetime.date | None) -> Phrase:
    """Art. 50: at most six months, only while fewer than 91 % of the games are finished."""
    t = next((t for t in desk.tournaments if t.index == index), None)
    if t is None or day is None:
        raise OrderError("extend-unknown", index=index)
    p = profile_of(t)
    finished = sum(1 for g in t.games if g.result) / max(1, len(t.games))
    if finished >= p.extension_finished_share:
        raise OrderError(
            "extend-share",
            finished=round(finished * 100),
            share=round(p.extension_finished_share * 100),
        )
    limit = _add_months(t.end, p.extension_max_months)
    if day > limit:
        raise OrderError("extend-months", months=p.extension_max_months, limit=limit.isoformat())
    if day <= t.end:
        raise OrderError("extend-before", day=day.isoformat(), end=t.end.isoformat())
    decisions.extend_tournament(t, day)
    details = {"index": t.index, "day": day.isoformat()}
    for g in t.games:
        if g.result is None:
            _inform(desk, g, "extended", **details)
    return Phrase("order.extended", details)


def _add_months(day: datetime.date, months: int) -> datetime.date:
    month = day.month - 1 + months
    year, month = day.year + month // 12, month % 12 + 1
    for last in (31, 30, 29, 28):
        try:
            return datetime.date(year, month, min(day.day, last))
        except ValueError:
            continue
    raise AssertionError("unreachable")


def withdraw(desk: Office, player: Player, *, valid: bool) -> Phrase:
    """Rules.md 6: what happens to each unfinished game of a withdrawn player."""
    t = player.tournament
    p = profile_of(t)
    games = [g for g in t.games if player.id in (g.white_id, g.black_id)]
    entries = [
        game.PlayerGame(
            tag_of(g),
            color_of(g, player),
            len(g.moves),
            finished=g.result is not None,
        )
        for g in games
    ]
    decided = game.decide_withdrawal(entries, p.withdrawal, valid_reason=valid)
    roster.withdraw_player(player, desk.now, valid=valid)
    done: list[Phrase] = []
    by_tag = {tag_of(g): g for g in games}
    for decision in decided:
        g = by_tag[decision.game]
        if g.result is not None:
            continue
        if decision.end is not None:
            desk.tell(end_game(g, decision.end, desk.now))
        else:
            decisions.refer_withdrawal(g, player.key, desk.now)
            _call_for_claims(desk, g, player)
        done.append(Phrase(f"order.withdrawal.{decision.outcome.value}", {"game": decision.game}))
    outcomes = done or [Phrase("order.withdrawal.none")]
    kind = "valid" if valid else "invalid"
    if not any(entry.own_moves for entry in entries):
        kind = "excluded"  # art. 47 A: no line in the crosstable (report.crosstable_of)
    return Phrase(f"order.withdrawn.{kind}", {"player": player.name, "games": outcomes})


def _call_for_claims(desk: Office, g: Game, withdrawn: Player) -> None:
    """Art. 48, 52 note 1: the game goes to the arbiter; both players send a claim."""
    t = g.tournament
    today = desk.now.astimezone(ZoneInfo(t.timezone)).date()
    due = game.adjudication_claims_due(today, profile_of(t))
    desk.tell(ev.WithdrawalCalled(g.id, withdrawn.id, due))


def tournaments_of(session: Session, address: str) -> list[Tournament]:
    """The tournaments ``address`` directs.

    Most mail is from players: the directors' addresses are read first (once per
    transaction, as every mail to a director alone asks them again), and only a
    director's tournaments are loaded. With a tournament changed and not yet written,
    the tournaments are read after it is."""
    if not pending(session, Tournament):
        known = recent(session).directed.get(address)
        if known is not None:
            return list(known)
        if not is_director(session, address):
            return []
    with held_back(session, Tournament):
        return list(session.scalars(_DIRECTED_BY, {"address": address}).all())


_DIRECTED_BY = select(Tournament).where(Tournament.director_email == bindparam("address"))
