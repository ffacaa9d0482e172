"""docs/install.md, run as written: its steps install a working service.

The extraction rule, which the guide states too: every fenced block marked
``sh`` is a step, run by ``sh -e`` as root would run it, in the order of the
page, in a copy of the source folder; it must exit 0. Every block marked
``console`` is a command after root's prompt ``# `` and the lines it prints: it
runs at its place among the steps and must print lines that agree with the shown
ones up to their first colon (the rest holds ages, ports and revisions), and exit
with the status of the worst level shown (0 OK, 1 WARNING, 2 CRITICAL; 0 when no
line has one). A line shown may take up to a minute to come true, as the guide
says of ``health``. Any other fence (``ini``, ``yaml``, ``text``) is only read;
``bash``, ``shell`` or an unmarked fence fails the test rather than be skipped.

What is changed on the way, and nothing else:

- the absolute places (``/etc``, ``/var``, ``/opt``) are moved under a throwaway
  root; a step that would name any other absolute path but ``/dev/null`` and
  ``/usr/sbin/nologin`` fails the test before it runs;
- the servers: the guide's host names, ports, ``security``, user names and
  passwords become those of a real Dovecot and a real SMTP listener that takes
  only that password (each replaced text must be in the guide);
- the virtual environment is made with ``--system-site-packages`` and
  ``--without-pip``, and its ``bin/pip install`` becomes ``bin/python -m pip
  install --no-deps`` (the pip of the Python that runs the tests, seen through
  the system site): the package itself is built from the source copy and
  installed into the venv for real (its wheel, its templates and migrations, its
  ``mailbot`` script), while its twenty dependencies come from the Python that
  runs the tests instead of 30 s or more of downloads, and the venv is not given
  a pip of its own to install;
- commands that change the machine itself are stand-ins on ``PATH`` that record
  their arguments (``tests/installhost.py``): ``apt-get``, ``useradd``,
  ``userdel``; ``runuser`` runs the command as the test's user; ``install``
  drops ``-o``/``-g`` (there is no ``mailbot`` user) and runs the real one;
  ``systemctl`` (no systemd runs here) starts the daemon the installed unit
  names, with the unit's ``EnvironmentFile=``, ``WorkingDirectory=`` and a
  ``NOTIFY_SOCKET`` it waits on for ``READY=1`` as systemd does for a
  ``Type=notify`` service, stops it with SIGTERM, and answers ``status``;
  ``journalctl`` prints what the daemon wrote.

``systemd-analyze verify`` runs for real, on the unit the guide installed.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import installhost
import pytest
from installhost import daemon_pid, moved, stop_daemon
from mailservers import ImapAccount, PasswordSmtpSink

CHECKOUT = Path(__file__).resolve().parent.parent
GUIDE = CHECKOUT / "docs" / "install.md"
#: What ``pip install .`` reads from the source folder.
SOURCE = ("pyproject.toml", "README.md", "mailbot", "templates", "migrations", "systemd")
STANDINS = ("apt-get", "useradd", "userdel", "runuser", "install", "systemctl", "journalctl")
HOST_FOLDERS = ("etc/systemd/system", "opt", "var/lib", "var/log")
ALLOWED_PATHS = ("/dev/null", "/usr/sbin/nologin")

# the listener takes a password without TLS, on loopback only
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")

SMTP_PASSWORD = "smtp-secret"
#: The install made quicker (see above), after the safety check of the paths.
QUICKER = {
    "python3 -m venv ": f"{sys.executable} -m venv --system-site-packages --without-pip ",
    "/bin/pip install ": "/bin/python -m pip install --no-deps ",
}


class Kind(enum.Enum):
    """A fenced block the test runs."""

    STEP = "sh"
    TRANSCRIPT = "console"


READ_ONLY = {"ini", "yaml", "text"}


@dataclasses.dataclass(frozen=True)
class Block:
    """One ``sh`` step or ``console`` transcript, under its section's heading."""

    kind: Kind
    heading: str
    command: str
    shown: tuple[str, ...] = ()


FENCE = re.compile(r"^```(?P<kind>[^\n`]*)\n(?P<body>.*?)^```$", re.M | re.S)


def blocks(markdown: str) -> list[Block]:
    """The steps and transcripts of ``markdown``, in order.

    >>> page = "## 1. A\\n```sh\\necho a\\n```\\n```console\\n# echo b\\nb\\n```\\n"
    >>> [(b.kind.value, b.heading, b.command, b.shown) for b in blocks(page)]
    [('sh', '1. A', 'echo a\\n', ()), ('console', '1. A', 'echo b', ('b',))]
    """
    found = []
    for match in FENCE.finditer(markdown):
        kind, body = match["kind"].strip(), match["body"]
        if kind in READ_ONLY:
            continue
        headings = re.findall(r"^## (.+)$", markdown[: match.start()], re.M)
        heading = headings[-1] if headings else ""
        assert kind in {k.value for k in Kind}, f"a ```{kind} block under {heading!r}"
        if Kind(kind) is Kind.STEP:
            found.append(Block(Kind.STEP, heading, body))
        else:
            first, *shown = body.splitlines()
            assert first.startswith("# "), f"a console block starts with '# ': {first!r}"
            found.append(Block(Kind.TRANSCRIPT, heading, first[2:], tuple(shown)))
    return found


def outside(text: str, root: Path) -> list[str]:
    """The absolute paths of ``text`` that lie neither under ``root`` nor are allowed."""
    paths = re.findall(r"(?<![\w.~/])/+[\w.@+-][\w./@+-]*", text)
    return [
        p
        for p in ("/" + p.lstrip("/") for p in paths)
        if not p.startswith(f"{root}/") and p not in ALLOWED_PATHS
    ]


def worst(shown: tuple[str, ...]) -> int:
    """The exit status the lines ``shown`` stand for.

    >>> worst(("OK a: b", "WARNING c: d")), worst(("database x: made",))
    (1, 0)
    """
    levels = {"OK": 0, "WARNING": 1, "CRITICAL": 2}
    return max((levels.get(line.split(" ", 1)[0], 0) for line in shown), default=0)


def heads(lines: list[str] | tuple[str, ...]) -> list[str]:
    return [line.split(":", 1)[0] for line in lines]


# --- the test ----------------------------------------------------------------------


@dataclasses.dataclass
class Host:
    """The throwaway host: its root, its stand-ins, the source copy, the servers."""

    state: Path
    env: dict[str, str]
    source: Path
    replacements: dict[str, str]

    @property
    def root(self) -> Path:
        return self.state / "root"

    def calls(self, name: str) -> list[list[str]]:
        lines = (self.state / "calls.jsonl").read_text().splitlines()
        return [call[1:] for call in map(json.loads, lines) if call[0] == name]

    def prepared(self, markdown: str) -> str:
        for said in QUICKER:
            assert said in markdown, f"the guide no longer says {said!r}"
        for said, meant in self.replacements.items():
            assert said in markdown, f"the guide no longer says {said!r}"
            markdown = markdown.replace(said, meant)
        return moved(markdown, self.root)

    def run(self, command: str) -> subprocess.CompletedProcess[str]:
        assert outside(command, self.root) == [], command
        for said, meant in QUICKER.items():
            command = command.replace(said, meant)
        return subprocess.run(
            ["sh", "-e", "-c", command], cwd=self.source, env=self.env,
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip


@pytest.fixture
def host(
    tmp_path: Path, imap_account: ImapAccount, password_smtp: PasswordSmtpSink
) -> Iterator[Host]:
    state = tmp_path / "state"
    for folder in HOST_FOLDERS:  # what any host has already
        (state / "root" / folder).mkdir(parents=True)
    (state / "calls.jsonl").write_text("")
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for name in STANDINS:
        stub = stubs / name
        run = shlex.join([sys.executable, "-S", installhost.__file__, name, str(state)])
        stub.write_text(f'#!/bin/sh\nexec {run} "$@"\n')
        stub.chmod(0o755)
    source = tmp_path / "source"
    source.mkdir()
    for name in SOURCE:
        item = CHECKOUT / name
        if item.is_dir():
            shutil.copytree(item, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(item, source / name)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MAILBOT_"))}
    env.pop("VIRTUAL_ENV", None)
    env["PATH"] = f"{stubs}:{os.environ['PATH']}"
    replacements = {
        "host: imap.federation.example": "host: 127.0.0.1",
        "host: smtp.federation.example": "host: 127.0.0.1",
        "port: 993": f"port: {imap_account.port}",
        "port: 465": f"port: {password_smtp.port}",
        "security: ssl": "security: none",
        "username: bot@federation.example": f"username: {imap_account.username}",
        "'imap-password'": f"'{imap_account.password}'",
        "'smtp-password'": f"'{SMTP_PASSWORD}'",
    }
    made = Host(state, env, source, replacements)
    try:
        yield made
    finally:
        stop_daemon(state)


@pytest.fixture
def password_smtp(imap_account: ImapAccount) -> Iterator[PasswordSmtpSink]:
    sink = PasswordSmtpSink(imap_account.username, SMTP_PASSWORD)
    sink.controller.start()
    try:
        yield sink
    finally:
        sink.controller.stop()


@pytest.mark.slow
def test_the_install_guide_installs_a_service_that_works(host: Host) -> None:
    guide = blocks(host.prepared(GUIDE.read_text(encoding="utf-8")))
    removal = next(i for i, block in enumerate(guide) if "Removal" in block.heading)
    printed: dict[str, subprocess.CompletedProcess[str]] = {}
    for block in guide[:removal]:
        printed[block.command] = perform(host, block)
    root = host.root

    database = root / "var/lib/mailbot/mailbot.db"
    assert database.is_file()
    assert stat.S_IMODE((root / "etc/mailbot/environment").stat().st_mode) == 0o600
    assert stat.S_IMODE((root / "etc/mailbot/config.yaml").stat().st_mode) == 0o640
    assert stat.S_IMODE((root / "etc/mailbot").stat().st_mode) == 0o750
    check = next(done for command, done in printed.items() if command.endswith(" check )"))
    assert check.returncode == 0 and check.stdout.count("OK ") == 7, check.stdout
    assert "OK poll: last successful poll" in next(
        done.stdout for command, done in printed.items() if command.endswith(" health")
    )
    # the program the venv holds is this checkout's, built and installed there
    python = root / "opt/mailbot/bin/python"
    where = subprocess.run(
        [python, "-c", "import mailbot; print(mailbot.__file__)"],
        cwd=root, env=host.env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert where.startswith(f"{root}/opt/mailbot/lib/"), where
    # what would have changed the machine was asked for as the guide means it
    assert host.calls("useradd") == [
        ["--system", "--user-group", "--home-dir", f"{root}/var/lib/mailbot",
         "--shell", "/usr/sbin/nologin", "mailbot"]
    ]  # fmt: skip
    assert {tuple(call[:2]) for call in host.calls("runuser")} == {("-u", "mailbot")}
    assert host.calls("install")[0][:7] == ["-d", "-o", "mailbot", "-g", "mailbot", "-m", "0750"]
    assert ["enable", "--now", "mailbot"] in host.calls("systemctl")
    assert daemon_pid(host.state) is not None, "the daemon runs after the upgrade's start"
    unit = root / "etc/systemd/system/mailbot.service"
    assert f"ExecStart={root}/opt/mailbot/bin/mailbot -c /etc/mailbot/config.yaml run" in (
        unit.read_text().splitlines()
    )
    verified = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert verified.returncode == 0, verified.stderr
    assert [line for line in verified.stderr.splitlines() if "mailbot.service" in line] == []

    for block in guide[removal:]:
        perform(host, block)
    assert daemon_pid(host.state) is None
    for place in ("opt/mailbot", "etc/mailbot", "var/lib/mailbot", "var/log/mailbot"):
        assert not (root / place).exists(), place
    assert not unit.exists()
    assert host.calls("userdel") == [["mailbot"]]


def perform(host: Host, block: Block) -> subprocess.CompletedProcess[str]:
    """Run one step or transcript and hold it to what the guide says of it."""
    if block.kind is Kind.STEP:
        done = host.run(block.command)
        said = f"{block.heading}:\n{block.command}\n{done.stdout}{done.stderr}"
        assert done.returncode == 0, said
        if "systemd-analyze verify" in block.command:
            assert "mailbot.service" not in done.stderr, said
        return done
    deadline = time.monotonic() + 60
    while True:
        done = host.run(block.command)
        lines = done.stdout.splitlines()
        if heads(lines) == heads(block.shown) and done.returncode == worst(block.shown):
            return done
        if time.monotonic() > deadline:
            said = f"{block.heading}: {block.command}\n{done.stdout}{done.stderr}"
            assert heads(lines) == heads(block.shown), said
            assert done.returncode == worst(block.shown), said
        time.sleep(1)
