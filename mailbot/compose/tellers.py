"""Which function tells each kind of event: one table, :data:`TELLERS`.

Each family module (``move_mail``, ``claim_mail``, ``leave_mail``…) has one function
per event class it tells; the table below names them all, and the
:class:`~mailbot.compose.notifier.Notifier` hands each event to its teller. A family
imports what it needs, never the notifier, so importing one family registers
nothing and importing this module registers all. Adding an event is one function
in one family module, its line here, and its templates::

    >>> TELLERS[ev.DrawOffered].__name__
    'draw_offered'
    >>> sorted(k.__name__ for k in ev.Event.__subclasses__() if k not in TELLERS)
    []
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from mailbot.compose import (
    answer_mail,
    bounce_mail,
    claim_mail,
    deadline_mail,
    digests,
    leave_mail,
    move_mail,
    order_mail,
    tournament_mail,
    trouble_mail,
)
from mailbot.rules import events as ev

if TYPE_CHECKING:
    from mailbot.compose.notifier import Notifier

__all__ = ["TELLERS"]

#: The teller of each event class.
TELLERS: Mapping[type[ev.Event], Callable[[Notifier, Any], None]] = MappingProxyType({
    ev.Answer: answer_mail.answer,
    ev.StrangerWrote: answer_mail.stranger_wrote,
    ev.Bounced: bounce_mail.bounced,
    ev.ClaimOpened: claim_mail.claim_opened,
    ev.DrawClaimed: claim_mail.draw_claimed,
    ev.TablebaseClaimed: claim_mail.tablebase_claimed,
    ev.ComplaintMade: claim_mail.complaint_made,
    ev.ClaimAnswered: claim_mail.claim_answered,
    ev.DirectorDecided: claim_mail.director_decided,
    ev.AdjudicationCalled: claim_mail.adjudication_called,
    ev.WithdrawalCalled: claim_mail.withdrawal_called,
    ev.AdjudicationPacket: claim_mail.adjudication_packet,
    ev.AdjudicationClaimed: claim_mail.adjudication_claimed,
    ev.Repeated: deadline_mail.repeated,
    ev.WarningDue: deadline_mail.warning_due,
    ev.DelayNoted: deadline_mail.delay_noted,
    ev.DigestDue: digests.digest_due,
    ev.DirectorDigest: digests.director_digest_due,
    ev.LeaveAnswered: leave_mail.leave_answered,
    ev.LeaveTaken: leave_mail.leave_taken,
    ev.LeaveEnded: leave_mail.leave_ended,
    ev.ExtraLeave: leave_mail.extra_leave,
    ev.MovePlayed: move_mail.move_played,
    ev.MoveRejected: move_mail.move_rejected,
    ev.IncompleteRepeated: move_mail.incomplete,
    ev.RejectionsRepeated: move_mail.rejections,
    ev.DrawOffered: move_mail.draw_offered,
    ev.DrawDeclined: move_mail.draw_declined,
    ev.GameEnded: move_mail.game_ended,
    ev.OrdersDone: order_mail.orders_done,
    ev.OrdersHeld: order_mail.orders_held,
    ev.OrdersCancelled: order_mail.orders_cancelled,
    ev.TournamentStarted: tournament_mail.tournament_started,
    ev.PlayerChanged: tournament_mail.player_changed,
    ev.PlayerReplaced: tournament_mail.player_replaced,
    ev.Quarantined: trouble_mail.quarantined,
    ev.Undeliverable: trouble_mail.undeliverable,
})  # fmt: skip
