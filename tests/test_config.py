from __future__ import annotations

import copy
import dataclasses
import operator
from pathlib import Path
from typing import Any

import pytest
import yaml

from mailbot.config import ConfigError, config_from_mapping, load_config, parse_config
from mailbot.mail.settings import Security

EXAMPLE = Path(__file__).resolve().parent.parent / "config.example.yaml"
ENV = {"MAILBOT_IMAP_PASSWORD": "imap-s3cret", "MAILBOT_SMTP_PASSWORD": "smtp-s3cret"}

GOOD: dict[str, Any] = {
    "database": "sqlite:///mailbot.db",
    "timezone": "Europe/Sofia",
    "imap": {
        "host": "127.0.0.1",
        "port": 993,
        "security": "ssl",
        "username": "bot@federation.example",
        "password": "${MAILBOT_IMAP_PASSWORD}",
        "folder": "INBOX",
        "done_folder": "Processed",
    },
    "smtp": {
        "host": "127.0.0.1",
        "port": 465,
        "security": "ssl",
        "username": "bot@federation.example",
        "password": "${MAILBOT_SMTP_PASSWORD}",
        "sender": "Federation CC <bot@federation.example>",
    },
}


def changed(path: str, value: Any) -> dict[str, Any]:
    """GOOD with the key at ``path`` (dotted) set to ``value``, or removed for ``...``."""
    data = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node.setdefault(key, {})
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return data


def test_example_file_is_valid() -> None:
    config = load_config(EXAMPLE, ENV)
    assert config.database == "sqlite:///mailbot.db"
    assert config.timezone == "Europe/Sofia"
    assert config.imap.password == "imap-s3cret"
    assert config.smtp.password == "smtp-s3cret"
    assert config.smtp.sender == "Federation CC <bot@federation.example>"
    assert config.imap.security is Security.SSL


def test_good_config_and_defaults() -> None:
    config = config_from_mapping(GOOD, ENV)
    assert (config.imap.host, config.imap.port, config.imap.folder) == ("127.0.0.1", 993, "INBOX")
    assert config.imap.done_folder == "Processed"
    assert config.imap.quarantine_folder == "Quarantine"
    assert (config.imap.idle_seconds, config.imap.poll_seconds) == (300, 60)
    assert config.policy.authserv_id is None
    assert config.policy.require_dmarc is False
    assert config.policy.replies_per_sender_per_day == 20
    assert config.sweep.hour == 6
    assert config.log_level == "INFO"


def test_optional_keys() -> None:
    data = copy.deepcopy(GOOD)
    data["imap"].update(quarantine_folder="Bad", idle_seconds=120, poll_seconds=30)
    data["smtp"]["security"] = "starttls"
    data["policy"] = {
        "authserv_id": "mx.federation.example",
        "require_dmarc": True,
        "replies_per_sender_per_day": 5,
    }
    data["sweep"] = {"hour": 23}
    data["log_level"] = "debug"
    config = config_from_mapping(data, ENV)
    assert (config.imap.quarantine_folder, config.imap.idle_seconds) == ("Bad", 120)
    assert config.imap.poll_seconds == 30
    assert config.smtp.security is Security.STARTTLS
    assert config.policy.authserv_id == "mx.federation.example"
    assert config.policy.require_dmarc is True
    assert config.policy.replies_per_sender_per_day == 5
    assert config.sweep.hour == 23
    assert config.log_level == "DEBUG"


def test_empty_optional_sections_are_defaults() -> None:
    data = copy.deepcopy(GOOD)
    data["policy"] = None
    assert config_from_mapping(data, ENV).policy.replies_per_sender_per_day == 20


def test_environment_substitution() -> None:
    data = changed("imap.password", "pre-${A}-${B}-$${A}")
    data = {**data, "smtp": {**data["smtp"], "port": "${PORT}"}}
    config = config_from_mapping(data, {**ENV, "A": "x", "B": "y", "PORT": "2525"})
    assert config.imap.password == "pre-x-y-${A}"
    assert config.smtp.port == 2525


def test_environment_substitution_of_a_flag() -> None:
    data = changed("policy.require_dmarc", "${DMARC}")
    data["policy"]["authserv_id"] = "mx.example.org"
    assert config_from_mapping(data, {**ENV, "DMARC": "true"}).policy.require_dmarc is True


def test_missing_variable_is_named() -> None:
    config = config_from_mapping(GOOD, {"MAILBOT_IMAP_PASSWORD": "x"})
    config.needs("imap")  # the SMTP password is no mistake for a command that only reads mail
    with pytest.raises(ConfigError) as caught:
        config.needs("imap", "smtp")
    assert (
        str(caught.value) == "smtp.password: environment variable MAILBOT_SMTP_PASSWORD is not set"
    )


def test_a_missing_variable_outside_the_servers_is_a_mistake_at_once() -> None:
    # every command uses the database: its variable is needed by all
    with pytest.raises(ConfigError) as caught:
        config_from_mapping(changed("database", "${MAILBOT_DB}"), ENV)
    assert str(caught.value) == "database: environment variable MAILBOT_DB is not set"


def test_secrets_stay_out_of_repr_and_str() -> None:
    data = changed("database", "postgresql+psycopg://bot:db-s3cret@db.example.org/cc")
    config = config_from_mapping(data, ENV)
    for text in (repr(config), str(config), repr(config.imap), str(config.smtp)):
        assert "s3cret" not in text
    assert "bot@federation.example" in repr(config.imap)
    assert config.database.endswith("db-s3cret@db.example.org/cc")


def test_config_is_immutable() -> None:
    config = config_from_mapping(GOOD, ENV)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.imap.port = 1  # type: ignore[misc]


ERRORS: list[tuple[str, str, Any, str]] = [
    ("unknown top-level key", "databse", "x", "databse: unknown key"),
    ("unknown nested key", "imap.tls", True, "imap.tls: unknown key"),
    ("unknown key in an optional section", "sweep.minute", 5, "sweep.minute: unknown key"),
    ("missing database", "database", ..., "database: is required"),
    ("missing section", "smtp", ..., "smtp: is required"),
    ("missing nested key", "imap.username", ..., "imap.username: is required"),
    ("section not a mapping", "imap", "127.0.0.1", "imap: must be a mapping"),
    ("port not a number", "imap.port", "993a", "imap.port: must be a whole number"),
    ("port a float", "smtp.port", 465.5, "smtp.port: must be a whole number"),
    ("port a flag", "smtp.port", True, "smtp.port: must be a whole number"),
    ("port out of range", "imap.port", 70000, "imap.port: must be at most 65535"),
    ("port zero", "imap.port", 0, "imap.port: must be at least 1"),
    ("security unknown", "smtp.security", "tls", "smtp.security: must be one of ssl, starttls"),
    ("host a number", "imap.host", 10, "imap.host: must be text"),
    ("host empty", "imap.host", "", "imap.host: must not be empty"),
    ("host null", "imap.host", None, "imap.host: must not be empty"),
    ("password a number", "imap.password", 1234, "imap.password: must be text"),
    ("bad database URL", "database", "mailbot.db", "database: is not a database URL"),
    ("unknown database", "database", "oracle+nothing://x", "database: names a database"),
    ("unknown timezone", "timezone", "Europe/Sofija", "timezone: unknown time zone"),
    ("idle zero", "imap.idle_seconds", 0, "imap.idle_seconds: must be at least 1"),
    ("dmarc not a flag", "policy.require_dmarc", "yes", "policy.require_dmarc: must be true"),
    ("dmarc without server", "policy.require_dmarc", True, "policy.authserv_id: is required"),
    (
        "negative cap",
        "policy.replies_per_sender_per_day",
        -1,
        "policy.replies_per_sender_per_day: must be at least 0",
    ),
    ("sweep hour", "sweep.hour", 24, "sweep.hour: must be at most 23"),
    ("log level", "log_level", "LOUD", "log_level: must be one of DEBUG"),
    ("bad variable name", "imap.username", "${1X}", "imap.username: ${1X} is not a valid"),
    ("timeout zero", "smtp.timeout", 0, "smtp.timeout: must be at least 1"),
    ("timeout text", "imap.timeout", "soon", "imap.timeout: must be a whole number"),
    ("password without user", "smtp.username", ..., "smtp.username: is required when"),
    ("special domains", "policy.special_use_domains", "yes", "policy.special_use_domains: must"),
]


def test_a_relay_without_authentication_needs_no_username() -> None:
    """A local MTA or a relay that trusts the host: no username, no password, no AUTH."""
    data = changed("smtp.username", ...)
    del data["smtp"]["password"]
    config = config_from_mapping(data, ENV)
    assert (config.smtp.username, config.smtp.password) == (None, None)


def test_timeouts_default_to_15_seconds_and_can_be_set() -> None:
    config = config_from_mapping(GOOD, ENV)
    assert (config.imap.timeout, config.smtp.timeout) == (15, 15)
    config = config_from_mapping(changed("imap.timeout", 5), ENV)
    assert config.imap.timeout == 5
    assert config_from_mapping(
        changed("policy.special_use_domains", True), ENV
    ).policy.special_use_domains


@pytest.mark.parametrize(
    ("path", "value", "message"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS]
)
def test_errors_name_the_key(path: str, value: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_mapping(changed(path, value), ENV)
    assert str(caught.value).startswith(message)
    assert caught.value.path == message.split(":")[0]
    assert "s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the file is empty"),
        ("- database\n", "must be a mapping"),
        ("database: [x\n", "not valid YAML: line 2"),
    ],
)
def test_file_level_errors(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_config(text, ENV)
    assert caught.value.path == ""


def test_load_from_file(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(GOOD), encoding="utf-8")
    assert load_config(path, ENV).imap.port == 993
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "missing.yaml", ENV)


def with_oauth2(account: str, **oauth2: Any) -> dict[str, Any]:
    """GOOD with ``account`` logging in by OAuth2 (no password)."""
    data = copy.deepcopy(GOOD)
    del data[account]["password"]
    data[account]["auth"] = "oauth2"
    data[account]["oauth2"] = {"client_id": "id.apps", "token_file": "/var/lib/mailbot/t.json",
                               **oauth2}  # fmt: skip
    return data


def test_oauth2_accounts_take_the_presets_keys() -> None:
    from mailbot.mail.settings import Auth, Mechanism, Provider

    env = {**ENV, "MAILBOT_OAUTH_SECRET": "oauth-s3cret"}
    data = with_oauth2("imap", provider="google", client_secret="${MAILBOT_OAUTH_SECRET}")
    data["smtp"] = with_oauth2("smtp", provider="microsoft", tenant="contoso.onmicrosoft.com")[
        "smtp"
    ]
    config = config_from_mapping(data, env)
    assert config.imap.auth is Auth.OAUTH2 and config.imap.password == ""
    assert config.imap.oauth2 is not None and config.imap.oauth2.provider is Provider.GOOGLE
    assert config.imap.oauth2.client_secret == "oauth-s3cret"
    assert "oauth-s3cret" not in repr(config)
    assert config.smtp.password is None and config.smtp.oauth2 is not None
    assert config.smtp.oauth2.tenant == "contoso.onmicrosoft.com"
    assert config.smtp.oauth2.client_secret is None  # a public client
    generic = config_from_mapping(
        with_oauth2("imap", provider="generic", token_url="https://idp.example/token",
                    device_url="https://idp.example/device", scopes="mail offline",
                    mechanism="oauthbearer"), ENV,
    )  # fmt: skip
    assert generic.imap.oauth2 is not None
    assert generic.imap.oauth2.scopes == ("mail", "offline")
    assert generic.imap.oauth2.mechanism is Mechanism.OAUTHBEARER
    assert config_from_mapping(GOOD, ENV).imap.auth is Auth.PASSWORD


def test_the_config_file_names_itself_in_the_fix_for_a_refused_token(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(with_oauth2("imap", provider="google")))
    config = load_config(path, ENV)
    assert config.imap.oauth2 is not None and config.imap.oauth2.config_file == str(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (with_oauth2("imap", provider="google", password="x"),
         "imap.oauth2.password: unknown key"),
        ({**with_oauth2("imap", provider="google"),
          "imap": {**with_oauth2("imap", provider="google")["imap"], "password": "x"}},
         "imap.password: must be left out when auth is oauth2"),
        (changed("imap.oauth2", {"provider": "google"}),
         "imap.oauth2: is only read when imap.auth is oauth2"),
        (with_oauth2("imap"), "imap.oauth2.provider: is required"),
        (with_oauth2("imap", provider="yahoo"),
         "imap.oauth2.provider: must be one of google, microsoft, generic"),
        (with_oauth2("smtp", provider="google", tenant="x"),
         "smtp.oauth2.tenant: is only read with provider microsoft"),
        (with_oauth2("smtp", provider="microsoft", token_url="https://x/t"),
         "smtp.oauth2.token_url: is only read with provider generic"),
        (with_oauth2("imap", provider="generic"), "imap.oauth2.token_url: is required"),
        (with_oauth2("imap", provider="generic", token_url="http://idp.example/t"),
         "imap.oauth2.token_url: must be an https:// URL"),
        (with_oauth2("imap", provider="generic", token_url="https://i/t", mechanism="plain"),
         "imap.oauth2.mechanism: must be one of xoauth2, oauthbearer"),
        (with_oauth2("imap", provider="generic", token_url="https://i/t", scopes=[1]),
         "imap.oauth2.scopes: must be a list of words"),
        (changed("imap.auth", "kerberos"), "imap.auth: must be one of password, oauth2"),
        ({**with_oauth2("smtp", provider="google"),
          "smtp": {**with_oauth2("smtp", provider="google")["smtp"], "username": None}},
         "smtp.username: is required when smtp.auth is oauth2"),
        (with_oauth2("imap", provider="google", token_file=None),
         "imap.oauth2.token_file: must not be empty"),
    ],
)  # fmt: skip
def test_oauth2_mistakes_name_their_key(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_mapping(data, ENV)
    assert str(caught.value) == message


@pytest.mark.parametrize("provider", ["Google Workspace", "Microsoft 365"])
def test_the_example_files_oauth2_blocks_are_valid(provider: str) -> None:
    """The commented blocks of config.example.yaml, uncommented, are a valid config."""
    text = EXAMPLE.read_text(encoding="utf-8")
    start = text.index(f"# {provider}")
    lines = text[start:].splitlines()[1:]
    block = []
    for line in lines:
        if not line.startswith("# ") or line.startswith(("# Microsoft", "# Another")):
            break
        block.append(line[2:])
    data = yaml.safe_load("\n".join(block))
    config = config_from_mapping({**GOOD, **data}, {"MAILBOT_OAUTH_SECRET": "s"})
    assert config.imap.oauth2 is not None and config.smtp.oauth2 is not None
    assert config.imap.oauth2.token_file == config.smtp.oauth2.token_file


def test_the_example_files_optional_keys_uncommented_are_valid_with_their_defaults() -> None:
    """Every optional key config.example.yaml shows, uncommented, is read as documented."""
    text = EXAMPLE.read_text(encoding="utf-8")
    head, _, tail = text.partition("# Optional sections; the values shown are the defaults.\n")
    optional = "\n".join(
        line[2:] if line.startswith("# ") else line
        for line in tail.splitlines()
        if not line.startswith("# tablebases:")  # a folder this machine has not
    )
    config = parse_config(head + optional, ENV)
    assert config.policy.replies_per_sender_per_day == 20
    assert config.sweep.hour == 6
    assert config.health.poll_minutes == 30
    assert config.log_file == "/var/log/mailbot/mailbot.log"
    assert config.log_format == "text"
    assert config.metrics_listen == "127.0.0.1:9464"
    assert config.bounce_address == "bounces@federation.example"


def _documented() -> dict[str, Any]:
    """The optional keys config.example.yaml shows in comments, by dotted key, with the
    values shown (``imap.idle_seconds``: 300)."""
    shown: dict[str, Any] = {}
    section = ""
    text = EXAMPLE.read_text(encoding="utf-8")
    for line in text.split("# OAuth2 instead")[0].splitlines():
        if line and not line.startswith((" ", "#")):
            section = line.split(":")[0]
        elif line.startswith("  # ") and ": " in line:
            key, _, value = line[4:].partition(":")
            shown[f"{section}.{key}"] = yaml.safe_load(value.split(" #")[0])
    optional = text.split("# Optional sections")[1].splitlines()[1:]
    for line in optional:
        body = line[2:].split(" #")[0]
        if not line.startswith("# ") or ":" not in body or body.startswith(" " * 10):
            continue
        key, _, value = body.strip().partition(":")
        if body.startswith("  "):
            shown[f"{section}.{key}"] = yaml.safe_load(value)
        elif value.strip():
            shown[key] = yaml.safe_load(value)
        else:
            section = key
    return shown


def _schema_default(schema: dict[str, Any], key: str) -> Any:
    """The default the configuration's schema gives the dotted ``key``."""
    where = schema
    *sections, last = key.split(".")
    for name in sections:
        where = schema["$defs"][where["properties"][name]["$ref"].split("/")[-1]]
    return where["properties"][last]["default"]


def test_each_default_is_written_once_and_the_example_file_shows_it() -> None:
    """The default the validator applies is the one its schema publishes, and the one
    config.example.yaml shows (a key without a default, a folder or an address, is
    shown with an example of a value)."""
    from mailbot.config import json_schema

    schema, shown = json_schema(), _documented()
    config = config_from_mapping(GOOD, ENV)  # every optional key left out
    assert len(shown) >= 15
    for key, value in shown.items():
        default = _schema_default(schema, key)
        assert operator.attrgetter(key)(config) == default, key
        assert default in (value, None), key
    defaults = [
        f"{section}.{key}"
        for section in ("imap", "policy", "sweep", "health")
        for key, field in schema["$defs"][f"{section.title()}Config"]["properties"].items()
        if field.get("default") not in (None, "password") and key not in GOOD.get(section, {})
    ]
    assert set(defaults) <= set(shown)
