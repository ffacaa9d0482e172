"""``mailbot health``: whether the bot works, one line per check, for monitoring.

Every check reads the database, so it works from any process while the daemon
runs: the store itself (reachable, writes, at the code's migration), when the
last poll and the last sweep succeeded (:class:`~mailbot.store.models.Heartbeat`,
written by the daemon, ``poll`` and ``sweep``), the oldest mail waiting in the
outbox, mail given up or bounced (and not dismissed), and messages in
quarantine; and, for an account that logs in with OAuth2, its token file
(readable, holding a refresh token, not refused at the last refresh). The exit status is the
worst level found, as monitoring plugins report it: 0 all OK, 1 a warning, 2 a
critical finding (3, bad usage or configuration, comes from the command line).

>>> print(Check(Level.WARNING, "quarantine", "2 messages set aside").line())
WARNING quarantine: 2 messages set aside
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from mailbot.config import Config, HealthConfig
from mailbot.mail.oauth import authorize_command, token_state
from mailbot.mail.settings import OAuth2Config
from mailbot.store import ledger
from mailbot.store.kinds import OutboxStatus
from mailbot.store.models import Heartbeat, InboundMessage, Outbox
from mailbot.store.outage import probe, raise_if_outage
from mailbot.store.outbox import gone_wrong
from mailbot.store.schema import migrations_head, schema_revision

#: The kinds of work whose last success is kept.
POLL = "poll"
SWEEP = "sweep"
#: The heartbeat of the last Xfcc request (:mod:`mailbot.shell.xfcclistener`).
XFCC = "xfcc"


class Level(enum.IntEnum):
    """How bad a finding is; its value is the exit status it gives."""

    OK = 0
    WARNING = 1
    CRITICAL = 2


@dataclasses.dataclass(frozen=True)
class Check:
    level: Level
    name: str
    found: str

    def line(self) -> str:
        return f"{self.level.name} {self.name}: {self.found}"


def beat(sessions: sessionmaker[Session], name: str, detail: str | None = None) -> None:
    """Record that ``name`` (:data:`POLL`, :data:`SWEEP`) succeeded just now, by the real
    clock (``--now`` moves the bot's dates, not the time monitoring looks at)."""
    now = datetime.datetime.now(datetime.UTC)
    try:
        with sessions() as session, session.begin():
            ledger.beat(session, name, detail, now)
    except Exception as exc:
        raise_if_outage(sessions, exc)
        raise


def _age(seconds: float) -> str:
    """``seconds`` in words.

    >>> _age(59), _age(3600), _age(3 * 3600 + 60), _age(3 * 86400)
    ('59 s', '1 h', '3 h 1 min', '3 days')
    """
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min"
    if seconds < 2 * 86400:
        hours, rest = divmod(seconds, 3600)
        return f"{hours:.0f} h" + (f" {rest // 60:.0f} min" if rest >= 60 else "")
    return f"{seconds // 86400:.0f} days"


def _by_age(name: str, what: str, age: float | None, limit: float) -> Check:
    """OK within ``limit`` seconds, a warning past it, critical past three times it."""
    if age is None:
        return Check(Level.WARNING, name, f"{what}: never")
    level = Level.OK if age <= limit else Level.WARNING if age <= 3 * limit else Level.CRITICAL
    said = f"{what} {_age(age)} ago"
    if level is not Level.OK:
        said += f" (more than {_age(limit)})"
    return Check(level, name, said)


def checks(
    sessions: sessionmaker[Session],
    limits: HealthConfig,
    now: datetime.datetime,
    *,
    tokens: Sequence[tuple[str, OAuth2Config]] = (),
) -> list[Check]:
    """Every check, in order; only the store's (and the tokens') when the store cannot be
    used. ``tokens``: the accounts that log in with OAuth2 (:func:`oauth_accounts`)."""
    fault = probe(sessions)
    if fault is not None:
        return [Check(Level.CRITICAL, "database", fault.line()), *oauth_tokens(tokens)]
    found = [Check(Level.OK, "database", "reachable and writes")]
    bind = sessions.kw["bind"]
    at, want = schema_revision(bind), migrations_head()
    if at != want:
        said = f"at revision {at or 'none'}, the code wants {want}: run mailbot init"
        return [*found, Check(Level.CRITICAL, "migration", said), *oauth_tokens(tokens)]
    found.append(Check(Level.OK, "migration", f"at revision {at}"))
    with sessions() as session:
        found += _work(session, limits, now)
    return found + oauth_tokens(tokens)


def oauth_accounts(config: Config) -> list[tuple[str, OAuth2Config]]:
    """The accounts (``imap``, ``smtp``) that log in with OAuth2, with their settings."""
    return [
        (name, account.oauth2)
        for name, account in (("imap", config.imap), ("smtp", config.smtp))
        if account.oauth2 is not None
    ]


def oauth_tokens(accounts: Sequence[tuple[str, OAuth2Config]]) -> list[Check]:
    """One ``oauth2`` line for the OAuth2 accounts (none without one): the worst finding.

    The token file is read by the real clock (token lifetimes do not follow ``--now``).

    >>> from mailbot.mail.settings import Provider
    >>> settings = OAuth2Config(Provider.GOOGLE, "id", "/nonexistent/t.json", config_file="c")
    >>> print(oauth_tokens([("smtp", settings)])[0].line())
    CRITICAL oauth2: smtp: no token file /nonexistent/t.json; run: mailbot -c c oauth authorize smtp
    """
    if not accounts:
        return []
    level, said = Level.OK, []
    for name, settings in accounts:
        state = token_state(Path(settings.token_file))
        fix = "run: " + authorize_command(settings, name)
        if not state.readable:
            level = Level.CRITICAL
            said.append(f"{name}: {state.problem}; {fix}")
        elif not state.has_refresh_token:
            level = Level.CRITICAL
            said.append(f"{name}: {settings.token_file} holds no refresh token; {fix}")
        elif state.refused is not None:
            level = Level.CRITICAL
            if state.refused in ("invalid_client", "unauthorized_client", "invalid_scope"):
                fix = f"check {name}.oauth2.client_id and client_secret"
            said.append(f"{name}: the provider refused the last refresh ({state.refused}); {fix}")
        else:
            left = (state.expires_at or 0) - time.time()
            token = f"access token for {_age(left)}" if left > 0 else "refreshed at the next login"
            said.append(f"{name}: refresh token present, {token}")
    return [Check(level, "oauth2", "; ".join(said))]


def _work(session: Session, limits: HealthConfig, now: datetime.datetime) -> list[Check]:
    beats = {row.name: row for row in session.scalars(select(Heartbeat))}

    def since(name: str) -> float | None:
        row = beats.get(name)
        return (now - row.at).total_seconds() if row is not None else None

    found = [
        _by_age("poll", "last successful poll", since(POLL), limits.poll_minutes * 60),
        _by_age("sweep", "last successful sweep", since(SWEEP), limits.sweep_hours * 3600),
    ]
    xfcc = beats.get(XFCC)
    if xfcc is not None:
        age = (now - xfcc.at).total_seconds()
        found.append(Check(Level.OK, "xfcc", f"last request {_age(age)} ago: {xfcc.detail}"))
    oldest, waiting = session.execute(
        select(func.min(Outbox.created_at), func.count()).where(Outbox.status == "pending")
    ).one()
    if not waiting:
        found.append(Check(Level.OK, "outbox", "nothing waiting"))
    else:
        age = (now - oldest).total_seconds()
        check = _by_age("outbox", f"{waiting} waiting, the oldest queued", age,
                        limits.outbox_minutes * 60)  # fmt: skip
        found.append(check)
    gone = gone_wrong(session)
    given_up, bounced = gone[OutboxStatus.FAILED], gone[OutboxStatus.BOUNCED]
    found.append(_count("failed mail", given_up, "mail given up", "see mailbot outbox --failed"))
    found.append(
        _count("bounced", bounced, "mail bounced after it was sent", "see mailbot outbox --bounced")
    )
    held = session.scalar(
        select(func.count()).where(InboundMessage.status == "quarantined")
    )  # fmt: skip
    found.append(_count("quarantine", held or 0, "messages set aside", "see mailbot quarantine"))
    return found


def _count(name: str, count: int | tuple[int, int], what: str, hint: str) -> Check:
    """A warning while ``count`` is not 0; ``count`` may carry the rows dismissed too.

    >>> print(_count("bounced", (0, 2), "mail bounced", "see it").line())
    OK bounced: no mail bounced (2 dismissed)
    >>> print(_count("bounced", (1, 2), "mail bounced", "see it").line())
    WARNING bounced: 1 mail bounced; see it
    """
    count, dismissed = count if isinstance(count, tuple) else (count, 0)
    if not count:
        return Check(
            Level.OK, name, f"no {what}" + (f" ({dismissed} dismissed)" if dismissed else "")
        )
    return Check(Level.WARNING, name, f"{count} {what}; {hint}")


def worst(found: Sequence[Check]) -> Level:
    """The exit status of ``found``."""
    return max((c.level for c in found), default=Level.OK)
