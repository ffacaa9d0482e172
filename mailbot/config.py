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
import errno
import functools
import os
import re
import zoneinfo
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    SkipValidation,
    Strict,
    TypeAdapter,
    ValidationError,
)
from pydantic.json_schema import SkipJsonSchema
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from mailbot.mail.settings import Auth, Mechanism, OAuth2Config, Provider, Security
from mailbot.rules.errors import SetupError, one_line
from mailbot.rules.validation import mistake, mistakes_of
from mailbot.store.yamltext import YamlProblem, read_yaml


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


def _raising(check: Callable[[str], str | None]) -> Callable[[str], str]:
    """A validator from ``check``, which gives the mistake's message or None."""

    def validate(value: str) -> str:
        problem = check(value)
        if problem:
            raise mistake(problem)
        return str(value)

    return validate


class _FromEnvironment(str):
    """A value that was wholly a ``${VAR}``: ``993`` from the environment is a number."""


def _environment_number(value: Any) -> Any:
    if isinstance(value, _FromEnvironment) and re.fullmatch(r"\s*[+-]?[0-9]{1,18}\s*", value):
        return int(value)
    return value


def _environment_flag(value: Any) -> Any:
    if isinstance(value, _FromEnvironment) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


def _filled(value: str) -> str | None:
    return None if value.strip() else "must not be empty"


_TEXT = "must be text (put it in quotes)"
#: Text that may be empty (a password), and text that must not.
AnyText = Annotated[str, Strict(), AfterValidator(str)]
Text = Annotated[str, Strict(), AfterValidator(_raising(_filled))]
#: ``993`` and ``true`` from the environment are a number and a flag (the validators
#: written last run first).
_NUMBER = BeforeValidator(_environment_number)
Flag = Annotated[bool, Strict(), BeforeValidator(_environment_flag)]
Port = Annotated[int, Strict(), Field(ge=1, le=65535), _NUMBER]
Seconds = Annotated[int, Strict(), Field(ge=1), _NUMBER]
Timeout = Annotated[int, Strict(), Field(ge=1, le=600), _NUMBER]
Count = Annotated[int, Strict(), Field(ge=0), _NUMBER]
Hour = Annotated[int, Strict(), Field(ge=0, le=23), _NUMBER]


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


def _folder_problem(value: str) -> str | None:
    """A folder named by its whole path must be one (a relative one is read later)."""
    try:
        missing = Path(value).is_absolute() and not Path(value).is_dir()
    except OSError:
        missing = True
    return f"{value} is not a folder" if missing else None


#: A file or folder the bot writes or reads (None: none).
_Path = Annotated[Text, AfterValidator(_raising(_path_problem))]
LocalPath = _Path | None
Folder = Annotated[_Path, AfterValidator(_raising(_folder_problem))] | None


@dataclasses.dataclass(frozen=True)
class ImapConfig:
    """Where the bot reads its mail."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    host: Text
    port: Port
    security: Security
    username: Text
    #: Empty with ``auth: oauth2``.
    password: AnyText = dataclasses.field(repr=False)
    #: The folder the bot reads.
    folder: Text = "INBOX"
    #: Processed mail is moved here (created if missing). A folder name without the
    #: server's personal prefix (``INBOX.`` on some servers) has it added.
    done_folder: Text = "Processed"
    #: Mail that failed three times is moved here.
    quarantine_folder: Text = "Quarantine"
    #: IDLE is re-issued after this many seconds.
    idle_seconds: Seconds = 300
    #: Polling interval for servers without IDLE.
    poll_seconds: Seconds = 60
    #: Connect and read timeout, in seconds.
    timeout: Timeout = 15
    auth: Auth = Auth.PASSWORD
    #: Set when ``auth`` is ``oauth2``.
    oauth2: OAuth2Config | None = None


@dataclasses.dataclass(frozen=True)
class SmtpConfig:
    """Where the bot sends its mail."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    host: Text
    port: Port
    security: Security
    #: The ``From:`` of every message the bot sends.
    sender: Text
    #: Without a username the bot sends without AUTH (a local MTA or a trusted relay).
    username: Annotated[AnyText | None, AfterValidator(lambda v: v or None)] = None
    password: AnyText | None = dataclasses.field(default=None, repr=False)
    #: Connect and read timeout, in seconds.
    timeout: Timeout = 15
    auth: Auth = Auth.PASSWORD
    #: Set when ``auth`` is ``oauth2``.
    oauth2: OAuth2Config | None = None


@dataclasses.dataclass(frozen=True)
class PolicyConfig:
    """Whom the bot trusts and how much it answers."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    #: ``Authentication-Results`` headers are trusted only from this server.
    authserv_id: Text | None = None
    #: Refuse moves whose sender did not pass DMARC at ``authserv_id``.
    require_dmarc: Flag = False
    #: The most answers one sender gets per day (loop protection).
    replies_per_sender_per_day: Count = 20
    #: Accept addresses on special-use domains (``.local``, ``.internal``, ``.test``...)
    #: in start lists, for a club whose mail stays inside its own network.
    special_use_domains: Flag = False


@dataclasses.dataclass(frozen=True)
class SweepConfig:
    """When the daily deadline pass runs."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    #: Hour of the day (in ``timezone``) of the daily sweep.
    hour: Hour = 6


@dataclasses.dataclass(frozen=True)
class HealthConfig:
    """The ages past which ``mailbot health`` warns; past three times the age it is
    critical."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    #: The last successful pass over the inbox (by the daemon or by ``poll``).
    poll_minutes: Seconds = 30
    #: The last successful deadline sweep (the daemon sweeps once a day).
    sweep_hours: Seconds = 26
    #: The oldest mail still waiting in the outbox.
    outbox_minutes: Seconds = 60


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


def _listen_problem(listen: str) -> str | None:
    """A port to serve on: host:port, and not 0 (a port no scraper could know)."""
    try:
        _, port = parse_listen(listen)
    except ValueError:
        port = 0
    return "must be host:port (like 127.0.0.1:9464)" if port == 0 else None


@dataclasses.dataclass(frozen=True)
class MetricsConfig:
    """Where the daemon serves its Prometheus metrics."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    #: ``host:port`` of ``/metrics``, if anywhere.
    listen: Annotated[Text, AfterValidator(_raising(_listen_problem))] | None = None


def _url_problem(url: str) -> str | None:
    if re.fullmatch(r"https?://[^\s/]+(/\S*)?", url):
        return None
    return "must be an http(s) URL (like https://cc.federation.example/xfcc)"


@dataclasses.dataclass(frozen=True)
class XfccConfig:
    """Where the daemon serves Xfcc, and the address players are told."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    #: ``host:port`` of ``/xfcc``, if the daemon serves Xfcc.
    listen: Annotated[Text, AfterValidator(_raising(_listen_problem))] | None = None
    #: The URL the players' programs use (the federation's TLS proxy), in the WSDL and
    #: the password mails; None: the listener's own address (:attr:`url`).
    public_url: Annotated[Text, AfterValidator(_raising(_url_problem))] | None = None
    #: Where the tournaments' pages are published (``URL/INDEX/``), for ``gameLink``.
    site_url: Annotated[Text, AfterValidator(_raising(_url_problem))] | None = None

    @property
    def url(self) -> str | None:
        """The URL players are told, if Xfcc is served.

        >>> XfccConfig("127.0.0.1:8081").url, XfccConfig().url
        ('http://127.0.0.1:8081/xfcc', None)
        """
        if self.listen is None:
            return None
        return self.public_url or f"http://{self.listen}/xfcc"


def _database_problem(url: str) -> str | None:
    try:
        parsed = make_url(url)
        parsed.get_dialect().import_dbapi()
    except (NoSuchModuleError, ImportError):
        return "names a database this installation cannot use"
    except (ArgumentError, ValueError):
        return "is not a database URL (like sqlite:///mailbot.db)"
    return _path_problem(parsed.database or "") if parsed.get_backend_name() == "sqlite" else None


def _timezone_problem(name: str) -> str | None:
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return f"unknown time zone {name!r} (like Europe/Sofia or UTC)"
    return None


_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")


def _one_of(*choices: str) -> Callable[[str], str | None]:
    return lambda value: None if value in choices else f"must be one of {', '.join(choices)}"


def _plain_address(value: str) -> str | None:
    if re.fullmatch(r"[^@\s+]+@[^@\s]+", value):
        return None
    return "must be a plain address without a +tag (like bounces@example.org)"


@dataclasses.dataclass(frozen=True)
class Config:
    """The whole configuration: the file's keys, each default written here alone."""

    #: ``arbitrary_types_allowed`` for ``unset``, which the file cannot hold.
    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(
        extra="forbid", arbitrary_types_allowed=True
    )

    #: SQLAlchemy URL; may hold a password, so it is left out of ``repr``.
    database: Annotated[Text, AfterValidator(_raising(_database_problem))] = dataclasses.field(
        repr=False
    )
    #: The bot's own time zone (logs, the daily sweep).
    timezone: Annotated[Text, AfterValidator(_raising(_timezone_problem))]
    imap: ImapConfig
    smtp: SmtpConfig
    policy: PolicyConfig = PolicyConfig()
    sweep: SweepConfig = SweepConfig()
    health: HealthConfig = HealthConfig()
    #: Upper case in the value, any case in the file.
    log_level: Annotated[
        Text, AfterValidator(str.upper), AfterValidator(_raising(_one_of(*_LOG_LEVELS)))
    ] = "INFO"
    #: Where the daemon keeps every tournament's published pages (``DIR/INDEX/``), if anywhere.
    site_folder: LocalPath = None
    #: The folder of the Syzygy endgame tables, if the federation installed them
    #: (003 part 1 art. 11b: their verdict goes into the claim packet).
    tablebases: Folder = None
    #: The envelope sender of every message, tagged per outbox row (VERP); None: the
    #: sender's own address with the tag. Its mail must reach the bot's IMAP folder.
    bounce_address: Annotated[Text, AfterValidator(_raising(_plain_address))] | None = None
    #: The ``metrics:`` section.
    metrics: MetricsConfig = MetricsConfig()
    #: The ``xfcc:`` section: the daemon serves Xfcc where it names ``listen``.
    xfcc: XfccConfig = XfccConfig()
    #: Where log lines go instead of stderr (reopened when logrotate moves it).
    log_file: LocalPath = None
    #: ``text`` or ``json``.
    log_format: Annotated[Text, AfterValidator(_raising(_one_of(*LOG_FORMATS)))] = "text"
    #: The ``${VAR}`` of a server's section (``imap``, ``smtp``) that is not set: an
    #: error only for a command that talks to that server (:meth:`needs`). Not a key
    #: of the file.
    unset: Annotated[tuple[ConfigError, ...], SkipValidation, SkipJsonSchema()] = ()

    @property
    def metrics_listen(self) -> str | None:
        """``host:port`` where the daemon serves Prometheus metrics at ``/metrics``, if anywhere."""
        return self.metrics.listen

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


@functools.cache
def _shape() -> TypeAdapter[Config]:
    """The validator of the whole file, built at its first use."""
    return TypeAdapter(Config)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the file, its defaults the ones the bot reads (for an editor
    that checks YAML against a schema).

    >>> json_schema()["$defs"]["SweepConfig"]["properties"]["hour"]
    {'default': 6, 'maximum': 23, 'minimum': 0, 'title': 'Hour', 'type': 'integer'}
    """
    return _shape().json_schema()


_VARIABLE = re.compile(r"\$(\$)?\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: The sections of the servers: an unset variable in one is a mistake only for a
#: command that talks to that server.
SERVERS = ("imap", "smtp")
#: The keys a mistake is sorted by: the order of the file's description above.
_ORDER = [f.name for f in dataclasses.fields(Config)]


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
    if data is None:
        raise ConfigError("", "the file is empty")
    if not isinstance(data, Mapping):
        raise ConfigError("", "must be a mapping of keys to values")
    found: list[ConfigError] = []
    data = _substituted(data, (), environ, found)
    _prepare(data, found)
    unset = [m for m in found if isinstance(m, _Unset) and m.path.split(".")[0] in SERVERS]
    found = [m for m in found if m not in unset]
    config, errors = _validated(data, {m.path for m in unset})
    taken = {m.path for m in found}
    found += [ConfigError(path, text) for path, text in errors if path not in taken]
    found.sort(key=_place)
    if len(found) == 1:
        raise found[0]
    if found or config is None:
        raise ConfigErrors(found)
    return dataclasses.replace(config, unset=tuple(unset))


#: What stands for an unset variable of a server's section, tried in turn until the
#: key takes one: the section is read for the other commands all the same.
_STAND_INS: tuple[Any, ...] = (
    *("", "unset", 1, False),
    *(next(iter(kind)).value for kind in (Security, Auth, Provider, Mechanism)),
)


def _place(found: ConfigError) -> int:
    """Where a mistake comes in the report: in the order of :class:`Config`'s keys."""
    key = found.path.split(".")[0]
    return _ORDER.index(key) if key in _ORDER else len(_ORDER)


def _validated(
    data: dict[str, Any], unset: set[str]
) -> tuple[Config | None, list[tuple[str, str]]]:
    """The configuration and the mistakes pydantic finds, but at the keys in ``unset``."""
    for stand_in in _STAND_INS:
        try:
            return _shape().validate_python(data), []
        except ValidationError as exc:
            errors = mistakes_of(exc, {"string_type": _TEXT})
        wrong = [path for path, _ in errors if path in unset]
        if not wrong or len(wrong) < len(errors):
            break
        for path in wrong:
            _put(data, path.split("."), stand_in)
    return None, [(path, text) for path, text in errors if path not in unset]


def _put(data: dict[str, Any], keys: list[str], value: Any) -> None:
    for key in keys[:-1]:
        data = data[key]
    data[keys[-1]] = value


def _substituted(
    value: Any, loc: tuple[str, ...], environ: Mapping[str, str], found: list[ConfigError]
) -> Any:
    """``value`` with every ``${VAR}`` replaced; a variable's mistake is noted in ``found``
    and its value is then empty."""
    if isinstance(value, Mapping):
        return {k: _substituted(v, (*loc, str(k)), environ, found) for k, v in value.items()}
    if not isinstance(value, str):
        return value
    try:
        replaced = substitute(".".join(loc), value, environ)
    except ConfigError as exc:
        found.append(exc)
        return ""
    return _FromEnvironment(replaced) if replaced != value else value


def _prepare(data: dict[str, Any], found: list[ConfigError]) -> None:
    """The checks across keys, noted in ``found``; the keys they refuse are taken out."""
    for key in ("unset", "metrics_listen"):
        if key in data:
            found.append(ConfigError(key, "unknown key"))
            del data[key]
    for key in ("policy", "sweep", "health", "metrics"):
        if key in data and data[key] is None:
            del data[key]
    for server in SERVERS:
        section = data.get(server)
        if isinstance(section, dict):
            _account(server, section, found)
    smtp = data.get("smtp")
    if isinstance(smtp, dict) and not smtp.get("username"):
        if isinstance(smtp.get("password"), str) and smtp["password"]:
            found.append(ConfigError("smtp.username", "is required when smtp.password is given"))
        elif smtp.get("auth") == Auth.OAUTH2.value:
            found.append(ConfigError("smtp.username", "is required when smtp.auth is oauth2"))
    policy = data.get("policy")
    dmarc = isinstance(policy, dict) and _environment_flag(policy.get("require_dmarc")) is True
    if dmarc and isinstance(policy, dict) and not policy.get("authserv_id"):
        found.append(
            ConfigError("policy.authserv_id", "is required when policy.require_dmarc is true")
        )


def _account(server: str, section: dict[str, Any], found: list[ConfigError]) -> None:
    """An account's password and ``oauth2:`` section, which its ``auth`` decides."""
    if section.get("auth", Auth.PASSWORD.value) != Auth.OAUTH2.value:
        if "oauth2" in section:
            only = f"is only read when {server}.auth is oauth2"
            found.append(ConfigError(f"{server}.oauth2", only))
            del section["oauth2"]
        return
    if "password" in section:
        found.append(ConfigError(f"{server}.password", "must be left out when auth is oauth2"))
    section["password"] = "" if server == "imap" else None
    if "oauth2" not in section:
        found.append(ConfigError(f"{server}.oauth2", "is required"))
    elif isinstance(section["oauth2"], dict):
        _oauth2(f"{server}.oauth2", section["oauth2"], found)


#: An endpoint may be plain http only on the loopback address.
_LOOPBACK = re.compile(r"http://(127\.0\.0\.1|localhost|\[::1\])[:/]")
#: The keys of ``oauth2:`` only the generic provider takes, and the one only Microsoft's.
_GENERIC_KEYS = ("token_url", "authorize_url", "device_url", "scopes", "mechanism")


def _oauth2(path: str, o: dict[str, Any], found: list[ConfigError]) -> None:
    """The ``oauth2:`` section's keys that :class:`OAuth2Config` cannot check alone.

    >>> found = []
    >>> _oauth2("smtp.oauth2", {"provider": "google", "tenant": "x", "scopes": "a b"}, found)
    >>> print(ConfigErrors(found))
    smtp.oauth2.scopes: is only read with provider generic
    smtp.oauth2.tenant: is only read with provider microsoft
    """

    def note(key: str, message: str) -> None:
        found.append(ConfigError(f"{path}.{key}", message))
        o.pop(key, None)

    if "config_file" in o:
        note("config_file", "unknown key")
    provider = o.get("provider")
    for key in (*_GENERIC_KEYS, "tenant"):
        allowed = Provider.MICROSOFT if key == "tenant" else Provider.GENERIC
        if key in o and provider in tuple(p.value for p in Provider) and provider != allowed.value:
            note(key, f"is only read with provider {allowed.value}")
    for key in ("client_id", "token_file", "tenant"):
        if isinstance(o.get(key), str) and not o[key].strip():
            note(key, "must not be empty")
    if isinstance(o.get("client_secret"), str) and not o["client_secret"]:
        o["client_secret"] = None
    if isinstance(o.get("token_file"), str) and (problem := _path_problem(o["token_file"])):
        note("token_file", problem)
    if isinstance(o.get("tenant"), str) and not re.fullmatch(r"[A-Za-z0-9.-]+", o["tenant"]):
        note("tenant", "must be common, organizations or a tenant's id")
    if provider == Provider.GENERIC.value and "token_url" not in o:
        note("token_url", "is required")
    for key in ("token_url", "authorize_url", "device_url"):
        value = o.get(key)
        if (
            isinstance(value, str)
            and not value.startswith("https://")
            and not _LOOPBACK.match(value)
        ):
            note(key, "must be an https:// URL")
    scopes = o.get("scopes", [])
    scopes = scopes.split() if isinstance(scopes, str) else scopes
    if not isinstance(scopes, list) or not all(isinstance(v, str) and v for v in scopes):
        note("scopes", "must be a list of words")
    elif "scopes" in o:
        o["scopes"] = [str(v) for v in scopes]


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
