"""The bot's configuration file (YAML).

``${VAR}`` in a value is replaced by the environment variable ``VAR``
(``$${`` stands for a literal ``${``). Every error names the key it is about::

    >>> text = '''
    ... database: sqlite:///mailbot.db
    ... timezone: Europe/Sofia
    ... imap: {host: 127.0.0.1, port: 993, security: ssl, username: bot,
    ...        password: "${IMAP}", folder: INBOX, done_folder: Processed}
    ... smtp: {host: 127.0.0.1, port: 465, security: ssl, username: bot,
    ...        password: secret, sender: "CC <bot@federation.example>"}
    ... '''
    >>> config = parse_config(text, {"IMAP": "s3cret"})
    >>> config.imap.port, config.imap.security, config.imap.quarantine_folder
    (993, <Security.SSL: 'ssl'>, 'Quarantine')
    >>> "s3cret" in repr(config)
    False
    >>> parse_config(text.replace("993", "nine"), {"IMAP": "x"})
    Traceback (most recent call last):
    ...
    mailbot.config.ConfigError: imap.port: must be a whole number

A variable of a server's section that is not set is a mistake only for a
command that talks to that server::

    >>> unset = parse_config(text, {})
    >>> unset.needs("smtp")
    >>> unset.needs("imap", "smtp")
    Traceback (most recent call last):
    ...
    mailbot.config.ConfigError: imap.password: environment variable IMAP is not set

Every mistake is reported in one reading, one line each::

    >>> try:
    ...     parse_config(text.replace("993", "nine").replace("ssl", "tls", 1) + "colour: red",
    ...                  {"IMAP": "x"})
    ... except ConfigError as exc:
    ...     print(exc)
    imap.port: must be a whole number
    imap.security: must be one of ssl, starttls, none
    colour: unknown key
"""

from __future__ import annotations

import dataclasses
import enum
import errno
import os
import re
import zoneinfo
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from mailbot.mail.settings import Auth, Mechanism, OAuth2Config, Provider, Security
from mailbot.rules.errors import SetupError, one_line
from mailbot.store.yamltext import YamlProblem, read_yaml

E = TypeVar("E", bound=enum.Enum)
T = TypeVar("T")


class ConfigError(SetupError, ValueError):
    """The configuration is not valid; ``path`` names the key (``imap.port``), or is empty."""

    def __init__(self, path: str, message: str) -> None:
        path, message = one_line(path), one_line(message)
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message

    @property
    def mistakes(self) -> tuple[ConfigError, ...]:
        """Every mistake found (this one alone, here)."""
        return (self,)


class ConfigErrors(ConfigError):
    """Several mistakes, all found in one reading; its text is one line a mistake, and
    its ``path`` and ``message`` are the first one's."""

    def __init__(self, mistakes: Sequence[ConfigError]) -> None:
        found = tuple(mistakes)
        super().__init__(found[0].path, found[0].message)
        self.args = ("\n".join(str(m) for m in found),)
        self._mistakes = found

    def __str__(self) -> str:
        return str(self.args[0])

    @property
    def mistakes(self) -> tuple[ConfigError, ...]:
        return self._mistakes


@dataclasses.dataclass(frozen=True)
class ImapConfig:
    """Where the bot reads its mail."""

    host: str
    port: int
    security: Security
    username: str
    #: Empty with ``auth: oauth2``.
    password: str = dataclasses.field(repr=False)
    #: The folder the bot reads.
    folder: str = "INBOX"
    #: Processed mail is moved here (created if missing). A folder name without the
    #: server's personal prefix (``INBOX.`` on some servers) has it added.
    done_folder: str = "Processed"
    #: Mail that failed three times is moved here.
    quarantine_folder: str = "Quarantine"
    #: IDLE is re-issued after this many seconds.
    idle_seconds: int = 300
    #: Polling interval for servers without IDLE.
    poll_seconds: int = 60
    #: Connect and read timeout, in seconds.
    timeout: int = 15
    auth: Auth = Auth.PASSWORD
    #: Set when ``auth`` is ``oauth2``.
    oauth2: OAuth2Config | None = None


@dataclasses.dataclass(frozen=True)
class SmtpConfig:
    """Where the bot sends its mail."""

    host: str
    port: int
    security: Security
    #: The ``From:`` of every message the bot sends.
    sender: str
    #: Without a username the bot sends without AUTH (a local MTA or a trusted relay).
    username: str | None = None
    password: str | None = dataclasses.field(default=None, repr=False)
    #: Connect and read timeout, in seconds.
    timeout: int = 15
    auth: Auth = Auth.PASSWORD
    #: Set when ``auth`` is ``oauth2``.
    oauth2: OAuth2Config | None = None


@dataclasses.dataclass(frozen=True)
class PolicyConfig:
    """Whom the bot trusts and how much it answers."""

    #: ``Authentication-Results`` headers are trusted only from this server.
    authserv_id: str | None = None
    #: Refuse moves whose sender did not pass DMARC at ``authserv_id``.
    require_dmarc: bool = False
    #: The most answers one sender gets per day (loop protection).
    replies_per_sender_per_day: int = 20
    #: Accept addresses on special-use domains (``.local``, ``.internal``, ``.test``...)
    #: in start lists, for a club whose mail stays inside its own network.
    special_use_domains: bool = False


@dataclasses.dataclass(frozen=True)
class SweepConfig:
    """When the daily deadline pass runs."""

    #: Hour of the day (in ``timezone``) of the daily sweep.
    hour: int = 6


@dataclasses.dataclass(frozen=True)
class HealthConfig:
    """The ages past which ``mailbot health`` warns; past three times the age it is
    critical."""

    #: The last successful pass over the inbox (by the daemon or by ``poll``).
    poll_minutes: int = 30
    #: The last successful deadline sweep (the daemon sweeps once a day).
    sweep_hours: int = 26
    #: The oldest mail still waiting in the outbox.
    outbox_minutes: int = 60


@dataclasses.dataclass(frozen=True)
class Config:
    """The whole configuration."""

    #: SQLAlchemy URL; may hold a password, so it is left out of ``repr``.
    database: str = dataclasses.field(repr=False)
    #: The bot's own time zone (logs, the daily sweep).
    timezone: str
    imap: ImapConfig
    smtp: SmtpConfig
    policy: PolicyConfig = PolicyConfig()
    sweep: SweepConfig = SweepConfig()
    health: HealthConfig = HealthConfig()
    log_level: str = "INFO"
    #: Where the daemon keeps every tournament's published pages (``DIR/INDEX/``), if anywhere.
    site_folder: str | None = None
    #: The folder of the Syzygy endgame tables, if the federation installed them
    #: (003 part 1 art. 11b: their verdict goes into the claim packet).
    tablebases: str | None = None
    #: The envelope sender of every message, tagged per outbox row (VERP); None: the
    #: sender's own address with the tag. Its mail must reach the bot's IMAP folder.
    bounce_address: str | None = None
    #: ``host:port`` where the daemon serves Prometheus metrics at ``/metrics``, if anywhere.
    metrics_listen: str | None = None
    #: Where log lines go instead of stderr (reopened when logrotate moves it).
    log_file: str | None = None
    #: ``text`` or ``json``.
    log_format: str = "text"
    #: The ``${VAR}`` of a server's section (``imap``, ``smtp``) that is not set: an
    #: error only for a command that talks to that server (:meth:`needs`).
    unset: tuple[ConfigError, ...] = ()

    def needs(self, *servers: str) -> None:
        """Raise the mistakes of unset variables in the sections of ``servers``
        (the module's docstring shows it)."""
        found = [
            ConfigError(m.path, m.message) for m in self.unset if m.path.split(".")[0] in servers
        ]
        if len(found) == 1:
            raise found[0]
        if found:
            raise ConfigErrors(found)


_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
_VARIABLE = re.compile(r"\$(\$)?\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def load_config(path: str | os.PathLike[str], environ: Mapping[str, str] | None = None) -> Config:
    """Read and validate the configuration file at ``path``.

    ``environ`` defaults to the process environment. A missing file raises
    :class:`ConfigError` too.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("", "file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("", f"cannot read the file: {exc}") from None
    config = parse_config(text, os.environ if environ is None else environ)
    imap, smtp = config.imap, config.smtp
    if imap.oauth2 is not None:
        imap = dataclasses.replace(
            imap, oauth2=dataclasses.replace(imap.oauth2, config_file=str(path))
        )
    if smtp.oauth2 is not None:
        smtp = dataclasses.replace(
            smtp, oauth2=dataclasses.replace(smtp.oauth2, config_file=str(path))
        )
    return dataclasses.replace(config, imap=imap, smtp=smtp)


def parse_config(text: str, environ: Mapping[str, str]) -> Config:
    """Validate the configuration in the YAML ``text``."""
    try:
        data = read_yaml(text)
    except YamlProblem as exc:
        raise ConfigError("", f"not valid YAML: {exc}") from None
    return config_from_mapping(data, environ)


def config_from_mapping(data: Any, environ: Mapping[str, str]) -> Config:
    """Validate an already parsed configuration.

    >>> config_from_mapping({"database": "sqlite://"}, {})
    Traceback (most recent call last):
    ...
    mailbot.config.ConfigErrors: timezone: is required
    imap: is required
    smtp: is required
    """
    top = _Section(data, "", environ)
    database = top.text("database")
    if database:
        top.check(lambda: _check_database(database), None)
    timezone = top.text("timezone")
    if timezone:
        top.check(lambda: _check_timezone("timezone", timezone), None)
    imap = _imap(top)
    smtp = _smtp(top)
    policy = _policy(top)
    sweep = _sweep(top)
    health = _health(top)
    listen = _metrics_listen(top)
    level, log_file, log_format = _logging(top)
    site_folder = _local_path(top, "site_folder")
    tablebases = _local_path(top, "tablebases")
    if tablebases and Path(tablebases).is_absolute() and not _is_folder(tablebases):
        top.mistake("tablebases", f"{tablebases} is not a folder")
    bounce_address = _bounce_address(top)
    top.finish()
    unset = [m for m in top.mistakes if isinstance(m, _Unset) and m.path.split(".")[0] in SERVERS]
    top.mistakes[:] = [m for m in top.mistakes if m not in unset]
    if len(top.mistakes) == 1:
        raise top.mistakes[0]
    if top.mistakes:
        raise ConfigErrors(top.mistakes)
    return Config(
        database=database,
        timezone=timezone,
        imap=imap,
        smtp=smtp,
        policy=policy,
        sweep=sweep,
        health=health,
        log_level=level,
        site_folder=site_folder,
        tablebases=tablebases,
        bounce_address=bounce_address,
        metrics_listen=listen or None,
        log_file=log_file,
        log_format=log_format,
        unset=tuple(unset),
    )


def _imap(top: _Section) -> ImapConfig:
    """The ``imap:`` section: the account the bot reads its mail from."""
    imap = top.section("imap")
    imap_auth = imap.choice("auth", Auth, default=Auth.PASSWORD)
    imap_config = ImapConfig(
        host=imap.text("host"),
        port=imap.port("port"),
        security=imap.choice("security", Security),
        username=imap.text("username"),
        password=imap.check(lambda: _password(imap, imap_auth, required=True) or "", ""),
        folder=imap.text("folder", default="INBOX"),
        done_folder=imap.text("done_folder", default="Processed"),
        quarantine_folder=imap.text("quarantine_folder", default="Quarantine"),
        idle_seconds=imap.whole("idle_seconds", default=300, low=1),
        poll_seconds=imap.whole("poll_seconds", default=60, low=1),
        timeout=imap.whole("timeout", default=15, low=1, high=600),
        auth=imap_auth,
        oauth2=imap.check(lambda: _oauth2(imap, imap_auth), None),
    )
    imap.finish()
    return imap_config


def _smtp(top: _Section) -> SmtpConfig:
    """The ``smtp:`` section: the account the bot sends its mail through."""
    smtp = top.section("smtp")
    smtp_auth = smtp.choice("auth", Auth, default=Auth.PASSWORD)
    smtp_config = SmtpConfig(
        host=smtp.text("host"),
        port=smtp.port("port"),
        security=smtp.choice("security", Security),
        username=smtp.text("username", default=None, empty=True) or None,
        password=smtp.check(lambda: _password(smtp, smtp_auth, required=False), None),
        sender=smtp.text("sender"),
        timeout=smtp.whole("timeout", default=15, low=1, high=600),
        auth=smtp_auth,
        oauth2=smtp.check(lambda: _oauth2(smtp, smtp_auth), None),
    )
    smtp.finish()
    if smtp_config.password and not smtp_config.username:
        top.mistake("smtp.username", "is required when smtp.password is given")
    if smtp_auth is Auth.OAUTH2 and not smtp_config.username and not smtp.dead:
        top.mistake("smtp.username", "is required when smtp.auth is oauth2")
    return smtp_config


def _policy(top: _Section) -> PolicyConfig:
    """The ``policy:`` section: whom the bot trusts and how much it answers."""
    policy = top.section("policy", optional=True)
    policy_config = PolicyConfig(
        authserv_id=policy.text("authserv_id", default=None),
        require_dmarc=policy.flag("require_dmarc", default=False),
        replies_per_sender_per_day=policy.whole("replies_per_sender_per_day", default=20, low=0),
        special_use_domains=policy.flag("special_use_domains", default=False),
    )
    policy.finish()
    if policy_config.require_dmarc and not policy_config.authserv_id:
        top.mistake("policy.authserv_id", "is required when policy.require_dmarc is true")
    return policy_config


def _sweep(top: _Section) -> SweepConfig:
    """The ``sweep:`` section: the hour of the daily deadline pass."""
    sweep = top.section("sweep", optional=True)
    sweep_config = SweepConfig(hour=sweep.whole("hour", default=6, low=0, high=23))
    sweep.finish()
    return sweep_config


def _health(top: _Section) -> HealthConfig:
    """The ``health:`` section: the ages at which ``mailbot health`` warns."""
    health = top.section("health", optional=True)
    health_config = HealthConfig(
        poll_minutes=health.whole("poll_minutes", default=30, low=1),
        sweep_hours=health.whole("sweep_hours", default=26, low=1),
        outbox_minutes=health.whole("outbox_minutes", default=60, low=1),
    )
    health.finish()
    return health_config


def _metrics_listen(top: _Section) -> str | None:
    """The ``metrics:`` section's ``listen``, the host:port of the metrics server."""
    metrics = top.section("metrics", optional=True)
    listen: str | None = metrics.text("listen", default=None)
    if listen:
        metrics.check(lambda: _check_listen(metrics.where("listen"), listen), None)
    metrics.finish()
    return listen


def _logging(top: _Section) -> tuple[str, str | None, str]:
    """``log_level`` (upper case), ``log_file`` (None: stderr) and ``log_format``."""
    level = top.text("log_level", default="INFO").upper()
    if level not in _LOG_LEVELS:
        top.mistake("log_level", f"must be one of {', '.join(_LOG_LEVELS)}")
    log_file = _local_path(top, "log_file")
    log_format = top.text("log_format", default="text")
    if log_format not in LOG_FORMATS:
        top.mistake("log_format", f"must be one of {', '.join(LOG_FORMATS)}")
    return level, log_file, log_format


def _bounce_address(top: _Section) -> str | None:
    """``bounce_address``: where delivery reports go, a plain address."""
    bounce_address: str | None = top.text("bounce_address", default=None)
    if bounce_address and not re.fullmatch(r"[^@\s+]+@[^@\s]+", bounce_address):
        top.mistake(
            "bounce_address", "must be a plain address without a +tag (like bounces@example.org)"
        )
    return bounce_address


def _local_path(section: _Section, key: str) -> str | None:
    """A file or folder named by ``key`` (None when left out or when it cannot be a path)."""
    value: str | None = section.text(key, default=None) or None
    if value and (problem := _path_problem(value)):
        section.mistake(section.where(key), problem)
        return None
    return value


def _path_problem(value: str) -> str | None:
    """Why ``value`` cannot name a file here (too long a name), or None.

    >>> _path_problem("x" * 300), _path_problem("mailbot.log")
    ('is too long a path (File name too long)', None)
    """
    try:
        os.stat(value)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return f"is too long a path ({exc.strerror})"
    except ValueError:
        return "is not a path"
    return None


def _is_folder(path: str) -> bool:
    try:
        return Path(path).is_dir()
    except OSError:
        return False


def _password(section: _Section, auth: Auth, *, required: bool) -> str | None:
    """The account's ``password``: required (IMAP) or optional (SMTP) with a password,
    refused with OAuth2."""
    if auth is Auth.OAUTH2:
        section.seen.add("password")
        if "password" in section.data:
            raise ConfigError(section.where("password"), "must be left out when auth is oauth2")
        return None
    if required:
        return str(section.text("password", empty=True))
    value: str | None = section.text("password", default=None, empty=True)
    return value


#: The keys of ``oauth2:`` only the generic provider takes, and the one only Microsoft's.
_GENERIC_KEYS = ("token_url", "authorize_url", "device_url", "scopes", "mechanism")


def _oauth2(section: _Section, auth: Auth) -> OAuth2Config | None:
    """The account's ``oauth2:`` section, required with ``auth: oauth2`` and refused
    without.

    >>> top = _Section({"auth": "oauth2", "oauth2": {"provider": "generic",
    ...     "client_id": "bot", "token_file": "t.json", "token_url": "https://idp/token",
    ...     "scopes": ["mail"], "mechanism": "oauthbearer"}}, "imap", {})
    >>> made = _oauth2(top, Auth.OAUTH2)
    >>> made.provider, made.scopes, made.mechanism
    (<Provider.GENERIC: 'generic'>, ('mail',), <Mechanism.OAUTHBEARER: 'oauthbearer'>)
    >>> _oauth2(_Section({"oauth2": {}}, "smtp", {}), Auth.PASSWORD)
    Traceback (most recent call last):
    ...
    mailbot.config.ConfigError: smtp.oauth2: is only read when smtp.auth is oauth2
    """
    if auth is not Auth.OAUTH2:
        section.seen.add("oauth2")
        if "oauth2" in section.data:
            raise ConfigError(
                section.where("oauth2"), f"is only read when {section.where('auth')} is oauth2"
            )
        return None
    o = section.section("oauth2")
    provider = o.choice("provider", Provider)
    client_id = o.text("client_id")
    secret = o.text("client_secret", default=None, empty=True) or None
    token_file = o.text("token_file")
    if problem := _path_problem(token_file):
        o.mistake(o.where("token_file"), problem)
    for key in (*_GENERIC_KEYS, "tenant"):
        allowed = Provider.MICROSOFT if key == "tenant" else Provider.GENERIC
        if key in o.data and provider is not allowed:
            o.mistake(o.where(key), f"is only read with provider {allowed.value}")
    tenant = o.text("tenant", default="common")
    if not re.fullmatch(r"[A-Za-z0-9.-]+", tenant):
        o.mistake(o.where("tenant"), "must be common, organizations or a tenant's id")
    token_url = _https(o, "token_url", required=provider is Provider.GENERIC)
    authorize_url = _https(o, "authorize_url", required=False)
    device_url = _https(o, "device_url", required=False)
    scopes = o.words("scopes")
    mechanism = o.choice("mechanism", Mechanism, default=Mechanism.XOAUTH2)
    o.finish()
    return OAuth2Config(
        provider=provider,
        client_id=client_id,
        token_file=token_file,
        client_secret=secret,
        tenant=tenant,
        token_url=token_url,
        authorize_url=authorize_url,
        device_url=device_url,
        scopes=scopes,
        mechanism=mechanism,
    )


def _https(section: _Section, key: str, *, required: bool) -> str | None:
    """An endpoint's URL: HTTPS (the token endpoint carries secrets), or http only
    on the loopback address."""
    value: str | None = section.text(key, default=_MISSING if required else None)
    if not value:
        return None
    loopback = re.match(r"http://(127\.0\.0\.1|localhost|\[::1\])[:/]", value)
    if not value.startswith("https://") and not loopback:
        section.mistake(section.where(key), "must be an https:// URL")
        return None
    return value


def substitute(path: str, value: str, environ: Mapping[str, str]) -> str:
    """Replace ``${VAR}`` in ``value`` by the environment variable ``VAR``.

    >>> substitute("x", "pre-${A}-$${A}", {"A": "1"})
    'pre-1-${A}'
    """

    def replace(match: re.Match[str]) -> str:
        escaped, name = match.group(1), match.group(2)
        if escaped:
            return "${" + name + "}"
        if not _NAME.match(name):
            raise ConfigError(path, f"${{{name}}} is not a valid variable name")
        try:
            return environ[name]
        except KeyError:
            raise _Unset(path, f"environment variable {name} is not set") from None

    return _VARIABLE.sub(replace, value)


class _Unset(ConfigError):
    """A ``${VAR}`` whose variable is not set."""


#: The sections of the servers: an unset variable in one is a mistake only for a
#: command that talks to that server.
SERVERS = ("imap", "smtp")


class _Missing:
    pass


_MISSING: Any = _Missing()


class _Section:
    """One mapping of the file; takes its keys one by one, then rejects the rest.

    A mistake is noted in ``mistakes`` (shared by every section of the file) and
    the reading goes on with a stand-in value, so that one reading finds them all;
    a section that is not a mapping is noted once and its keys are not asked for.
    """

    def __init__(
        self,
        data: Any,
        path: str,
        environ: Mapping[str, str],
        mistakes: list[ConfigError] | None = None,
    ) -> None:
        self.mistakes: list[ConfigError] = [] if mistakes is None else mistakes
        self.dead = False
        if data is None and not path:
            raise ConfigError("", "the file is empty")
        if not isinstance(data, Mapping):
            if not path:
                raise ConfigError(path, "must be a mapping of keys to values")
            self.mistakes.append(ConfigError(path, "must be a mapping of keys to values"))
            data, self.dead = {}, True
        self.data: Mapping[Any, Any] = data
        self.path = path
        self.environ = environ
        self.seen: set[Any] = set()

    def where(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def mistake(self, path: str, message: str) -> None:
        """Note a mistake about ``path`` found by a check across keys."""
        self.mistakes.append(ConfigError(path, message))

    def check(self, make: Callable[[], T], fallback: T) -> T:
        """What ``make()`` gives, or ``fallback`` once its mistake is noted."""
        if self.dead:
            return fallback
        try:
            return make()
        except ConfigError as exc:
            self.mistakes.extend(exc.mistakes)
            return fallback

    def _raw(self, key: str, default: Any) -> tuple[Any, bool]:
        """The value and whether it came (wholly) from a ``${VAR}``."""
        self.seen.add(key)
        if key not in self.data:
            if default is _MISSING:
                raise ConfigError(self.where(key), "is required")
            return default, False
        value = self.data[key]
        if isinstance(value, str):
            replaced = substitute(self.where(key), value, self.environ)
            return replaced, replaced != value
        return value, False

    def section(self, key: str, optional: bool = False) -> _Section:
        def make() -> _Section:
            value, _ = self._raw(key, {} if optional else _MISSING)
            data = {} if value is None and optional else value
            return _Section(data, self.where(key), self.environ, self.mistakes)

        dead = _Section({}, self.where(key), self.environ, self.mistakes)
        dead.dead = True
        return self.check(make, dead)

    def text(self, key: str, default: Any = _MISSING, empty: bool = False) -> Any:
        return self.check(lambda: self._text(key, default, empty), _fallback(default, ""))

    def _text(self, key: str, default: Any, empty: bool) -> Any:
        value, _ = self._raw(key, default)
        if value is None and default is None:
            return None
        if value is None:
            raise ConfigError(self.where(key), "must not be empty")
        if not isinstance(value, str):
            raise ConfigError(self.where(key), "must be text (put it in quotes)")
        if not value.strip() and not empty:
            raise ConfigError(self.where(key), "must not be empty")
        return value

    def whole(
        self, key: str, default: Any = _MISSING, low: int = 0, high: int | None = None
    ) -> int:
        fallback: int = _fallback(default, low)
        return self.check(lambda: self._whole(key, default, low, high), fallback)

    def _whole(self, key: str, default: Any, low: int, high: int | None) -> int:
        value, from_environment = self._raw(key, default)
        if from_environment and re.fullmatch(r"\s*[+-]?[0-9]{1,18}\s*", value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(self.where(key), "must be a whole number")
        if value < low:
            raise ConfigError(self.where(key), f"must be at least {low}")
        if high is not None and value > high:
            raise ConfigError(self.where(key), f"must be at most {high}")
        return value

    def port(self, key: str) -> int:
        return self.whole(key, low=1, high=65535)

    def flag(self, key: str, default: Any = _MISSING) -> bool:
        fallback: bool = _fallback(default, False)
        return self.check(lambda: self._flag(key, default), fallback)

    def _flag(self, key: str, default: Any) -> bool:
        value, from_environment = self._raw(key, default)
        if from_environment and value.strip().lower() in ("true", "false"):
            value = value.strip().lower() == "true"
        if not isinstance(value, bool):
            raise ConfigError(self.where(key), "must be true or false")
        return value

    def words(self, key: str) -> tuple[str, ...]:
        """A list of words (or one text of words separated by spaces); empty when left out."""
        return self.check(lambda: self._words(key), ())

    def _words(self, key: str) -> tuple[str, ...]:
        value, _ = self._raw(key, [])
        if isinstance(value, str):
            value = value.split()
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ConfigError(self.where(key), "must be a list of words")
        return tuple(value)

    def choice(self, key: str, kind: type[E], default: Any = _MISSING) -> E:
        fallback: E = _fallback(default, next(iter(kind)))
        return self.check(lambda: self._choice(key, kind, default), fallback)

    def _choice(self, key: str, kind: type[E], default: Any) -> E:
        if default is not _MISSING and key not in self.data:
            self.seen.add(key)
            chosen: E = default
            return chosen
        value = self._text(key, _MISSING, False)
        try:
            return kind(value)
        except ValueError:
            members = ", ".join(str(m.value) for m in kind)
            raise ConfigError(self.where(key), f"must be one of {members}") from None

    def finish(self) -> None:
        if self.dead:
            return
        for key in self.data:
            if key not in self.seen:
                self.mistakes.append(ConfigError(self.where(str(key)), "unknown key"))


def _fallback(default: Any, otherwise: Any) -> Any:
    """The value a key stands for once its mistake is noted: its default, or ``otherwise``."""
    return otherwise if default is _MISSING or default is None else default


def parse_listen(listen: str) -> tuple[str, int]:
    """``host:port`` (``[::1]:9464`` for IPv6) as a pair; ValueError when it is none.

    >>> parse_listen("127.0.0.1:9464"), parse_listen("[::1]:0")
    (('127.0.0.1', 9464), ('::1', 0))
    """
    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    if not host or not re.fullmatch(r"[0-9]{1,5}", port) or not 0 <= int(port) <= 65535:
        raise ValueError(f"{listen!r} is not host:port (like 127.0.0.1:9464)")
    return host, int(port)


def _check_listen(path: str, listen: str) -> None:
    """A port to serve on: host:port, and not 0 (a port no scraper could know)."""
    try:
        _, port = parse_listen(listen)
    except ValueError:
        port = 0
    if port == 0:
        raise ConfigError(path, "must be host:port (like 127.0.0.1:9464)")


def _check_database(url: str) -> None:
    try:
        parsed = make_url(url)
        parsed.get_dialect().import_dbapi()
    except (NoSuchModuleError, ImportError):
        raise ConfigError("database", "names a database this installation cannot use") from None
    except (ArgumentError, ValueError):
        raise ConfigError("database", "is not a database URL (like sqlite:///mailbot.db)") from None
    problem = (
        _path_problem(parsed.database or "") if parsed.get_backend_name() == "sqlite" else None
    )
    if problem:
        raise ConfigError("database", problem)


def _check_timezone(path: str, name: str) -> None:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ConfigError(path, f"unknown time zone {name!r} (like Europe/Sofia or UTC)") from None
