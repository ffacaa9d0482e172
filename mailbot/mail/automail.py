"""Machine mail: why a message was written by a machine and must never be answered.

Auto-replies, delivery reports, mailing lists and our own mail coming back
are known by their headers (RFC 3834 ``Auto-Submitted``, ``Precedence``,
``List-*``, a null ``Return-Path``), their sender or, for an out-of-office
reply, by its subject.

    >>> AutoKind("own-mail")
    <AutoKind.OWN_MAIL: 'own-mail'>
"""

from __future__ import annotations

import enum
import re
from collections.abc import Collection, Iterable, Mapping
from email.message import Message

from mailbot.mail.addresses import normal_address, without_tag
from mailbot.mail.headers import RE_SPACE
from mailbot.mail.intent import Word, read_words
from mailbot.mail.mime import content_type_of

__all__ = ["AUTOREPLY_HEADERS", "LIST_HEADERS", "AutoKind", "auto_kind"]


class AutoKind(enum.Enum):
    """Why a message must never be answered (it was written by a machine).

    When several reasons apply, the first one in this order is reported.
    """

    #: Our own mail came back (``X-Mailbot-Event`` header, or one of our addresses).
    OWN_MAIL = "own-mail"
    #: A delivery or disposition report (``multipart/report``, ``message/delivery-status``).
    DELIVERY_REPORT = "delivery-report"
    #: Sent by ``mailer-daemon@``, ``MAILER_DAEMON@``, ``postmaster@`` or a "Mail Delivery System".
    MAILER_DAEMON = "mailer-daemon"
    #: ``Auto-Submitted`` with any value but ``no`` (RFC 3834).
    AUTO_SUBMITTED = "auto-submitted"
    #: ``X-Autoreply``, ``X-Autorespond``, ``X-Auto-Response-Suppress: All/OOF`` and kin.
    AUTOREPLY = "autoreply"
    #: Mailing-list headers (``List-Id``, ``List-Unsubscribe``, ...).
    MAILING_LIST = "mailing-list"
    #: ``Precedence: bulk``, ``junk`` or ``list``.
    PRECEDENCE = "precedence"
    #: ``Return-Path: <>``: the sender wants no answer (RFC 5321 null path).
    EMPTY_RETURN_PATH = "empty-return-path"
    #: An out-of-office reply known only by its subject ("Automatic reply:", "Автоответ:").
    OUT_OF_OFFICE = "out-of-office"


AUTOREPLY_HEADERS = ("x-autoreply", "x-autorespond", "x-autoreply-from", "x-mail-autoreply")
LIST_HEADERS = (
    "list-id",
    "list-unsubscribe",
    "list-post",
    "list-help",
    "list-subscribe",
    "list-owner",
    "list-archive",
)
_REPORT_TYPES = frozenset(
    {
        "multipart/report",
        "message/delivery-status",
        "message/global-delivery-status",
        "message/disposition-notification",
    }
)


_RE_DAEMON_LOCAL = re.compile(r"^(?:mailer[-_.]?daemon|postmaster|mail[-_.]?daemon)$")
_RE_DAEMON_NAME = re.compile(
    r"mail\s*delivery\s*(?:system|subsystem|service)|mailer[-_ ]?daemon|postmaster"
    r"|mail\s*administrator|почтов\w*\s+(?:служба|система)",
    re.IGNORECASE,
)
# Subjects that may be a person's own words ("I am away") as well as an autoresponder's:
# an out-of-office reply unless the text asks for leave (then a player wrote it).
_RE_AWAY = re.compile(
    r"^\s*(?:отсъствам|отсъствие|в\s+отпуск[еа]?|в\s+отпуска|on\s+vacation|on\s+holiday"
    r"|on\s+leave|away)(?:\s*[:：\-–—(]|\s*$|\s+(?:до|until|till)\b)",
    re.IGNORECASE,
)
# Out-of-office replies that carry no header saying so, known by how their subject begins.
_RE_OUT_OF_OFFICE = re.compile(
    r"^\s*(?:out\s+of\s+(?:the\s+)?office|automatic\s+reply|auto[-\s]?reply|auto[-\s]?response"
    r"|auto\s*:|autosvar|abwesenheitsnotiz|away\s+from\s+(?:the|my)\s+office"
    r"|vacation\s+(?:reply|response|notice)|i\s+am\s+out\s+of\s+the\s+office"
    r"|автоматичен\s+отговор|автоотговор|извън\s+офиса|вън\s+от\s+офиса"
    r"|автоответ|автоматический\s+ответ|автоматическое\s+уведомление|вне\s+офиса"
    r"|нет\s+на\s+месте|отсутствую\s+в\s+офисе)(?:\s*[:：\-–—(]|\s*$)",
    re.IGNORECASE,
)


def _first_token(value: str) -> str:
    return value.split(";", 1)[0].strip().lower()


def _own(address: str, own: Collection[str]) -> bool:
    return bool(address) and without_tag(address) in own


def auto_kind(
    message: Message,
    headers: Mapping[str, str],
    from_addr: str,
    senders: Iterable[tuple[str, str]],
    subject: str,
    body: str,
    own_addresses: Collection[str],
) -> AutoKind | None:
    """Why the message must not be answered (the first in :class:`AutoKind` order), or None."""
    own = {without_tag(normal_address(a)) for a in own_addresses}
    if "x-mailbot-event" in headers or any(_own(a, own) for _, a in senders):
        return AutoKind.OWN_MAIL
    types_seen = {content_type_of(message)}
    payload = message.get_payload() if message.is_multipart() else None
    if isinstance(payload, list):
        types_seen.update(content_type_of(c) for c in payload[:50] if isinstance(c, Message))
    if types_seen & _REPORT_TYPES or "x-failed-recipients" in headers:
        return AutoKind.DELIVERY_REPORT
    if any(
        _RE_DAEMON_LOCAL.match(a.partition("@")[0]) or _RE_DAEMON_NAME.search(n) for n, a in senders
    ):
        return AutoKind.MAILER_DAEMON
    if _first_token(headers.get("auto-submitted", "no") or "no") != "no":
        return AutoKind.AUTO_SUBMITTED
    precedence = _first_token(headers.get("precedence", "") or headers.get("x-precedence", ""))
    suppress = {t.strip().lower() for t in headers.get("x-auto-response-suppress", "").split(",")}
    if (
        any(h in headers for h in AUTOREPLY_HEADERS)
        or suppress & {"all", "oof"}
        or _first_token(headers.get("x-autogenerated", "")) == "reply"
        or precedence == "auto_reply"
    ):
        return AutoKind.AUTOREPLY
    if any(h in headers for h in LIST_HEADERS):
        return AutoKind.MAILING_LIST
    if precedence in ("bulk", "junk", "list"):
        return AutoKind.PRECEDENCE
    if RE_SPACE.sub("", headers.get("return-path", "x")) == "<>":
        return AutoKind.EMPTY_RETURN_PATH
    if _RE_OUT_OF_OFFICE.match(subject):
        return AutoKind.OUT_OF_OFFICE
    if _RE_AWAY.match(subject) and not read_words(body).has(Word.LEAVE):
        return AutoKind.OUT_OF_OFFICE
    return None
