"""Fault injection for the daemon tests: servers that go away, hang or restart.

- :class:`PrivatePostgres`: a throw-away PostgreSQL cluster of its own (so it
  can be stopped and started under a running bot without touching the shared
  server), fixture ``private_postgres``;
- :class:`HungSmtp`: a TCP listener that accepts connections and never greets,
  fixture ``hung_smtp``;
- :class:`SlowSmtp`: an aiosmtpd listener that holds its answers to MAIL FROM
  and to the end of DATA, with the moment each began and ended;
- :class:`FrozenProxy`: a TCP relay that can be frozen, for a database that
  stops answering;
- :class:`PrivateDovecot`: a Dovecot of its own that can be restarted on the
  same port with its accounts kept, fixture ``private_dovecot``;
- ``mailbot run`` as a real process (:func:`start_daemon`, fixture
  ``daemons``), its configuration (:func:`write_daemon_config`),
  :func:`wait_until` and :func:`sigterm_and_time`.

Without the PostgreSQL or Dovecot binaries the tests that need them fail when
``CI`` is set and are skipped with the reason elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import datetime
import itertools
import os
import pwd
import re
import select
import selectors
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn, cast

import processes
import pytest
import yaml
from harness import login
from mailservers import Dovecot, ImapAccount, SmtpSink, free_port
from processes import STACKS, BotProcess

#: ``imap.timeout`` and ``smtp.timeout`` of the daemon under test (seconds).
DAEMON_TIMEOUT = 5


def unavailable(reason: str) -> NoReturn:
    """A server the tests need is missing: fail under CI, skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


# PostgreSQL ----------------------------------------------------------------


def postgres_bindir() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: on the PATH, else Debian's newest."""
    on_path = shutil.which("pg_ctl")
    if on_path is not None and (Path(on_path).parent / "initdb").exists():
        return Path(on_path).parent

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", path.parent.name))

    found = [b for b in Path("/usr/lib/postgresql").glob("*/bin") if (b / "pg_ctl").exists()]
    return max(found, key=version) if found else None


class PrivatePostgres:
    """A PostgreSQL cluster in a temporary folder, on a free loopback port.

    Trust authentication for ``postgres``; the unix socket lies in the
    folder, so nothing clashes with a system server. Run as root, every
    PostgreSQL program runs as the ``postgres`` user (``runuser``).
    """

    def __init__(self, bindir: Path, *, timeout: int = 60) -> None:
        self.bindir = bindir
        self.timeout = timeout
        self.as_root = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="mailbot-pg-"))
        if self.as_root:
            entry = pwd.getpwnam("postgres")
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_port()
        self.running = False
        try:
            self._initdb()
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bindir / program), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(
            command,
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=self.timeout + 30,
        )
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{program} {' '.join(args)} exited {done.returncode}:\n"
                f"{done.stdout}{done.stderr}\n{log}"
            )

    def _initdb(self) -> None:
        options = ["-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]
        self._run("initdb", "-D", str(self.data), *options)
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\n"
                f"port = {self.port}\n"
                f"unix_socket_directories = '{self.root}'\n"
                "shared_buffers = 16MB\n"
                # a throw-away cluster that is only ever stopped cleanly
                "fsync = off\n"
                "full_page_writes = off\n"
            )

    def _pg_ctl(self, action: str, *args: str) -> None:
        """``pg_ctl ACTION``, waiting (``-w``) at most ``timeout`` seconds."""
        self._run("pg_ctl", action, "-D", str(self.data), "-w", "-t", str(self.timeout), *args)

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self._pg_ctl("start", "-l", str(self.log))
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop -m MODE``: ``fast`` ends every session, as an administrator would."""
        self._pg_ctl("stop", "-m", mode)
        self.running = False

    def restart(self) -> None:
        self.stop()
        self.start()

    def destroy(self) -> None:
        """Stop the server if it runs and remove the folder; never raises."""
        if self.running or (self.data / "postmaster.pid").exists():
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    """A started PostgreSQL cluster of the test's own, destroyed afterwards."""
    bindir = postgres_bindir()
    if bindir is None or not (bindir / "initdb").exists():
        unavailable("PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql)")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            unavailable("running as root, PostgreSQL needs a 'postgres' user to run as")
        if shutil.which("runuser") is None:
            unavailable("running as root, PostgreSQL is started through runuser (util-linux)")
    server = PrivatePostgres(bindir)
    try:
        server.start()
        yield server
    finally:
        server.destroy()


# SMTP that never answers -----------------------------------------------------


class HungSmtp:
    """A listener on 127.0.0.1 that accepts every connection and never says a word.

    A client waits for the greeting until its own timeout. The sockets stay
    open on this side until :meth:`close`; :attr:`accepted` counts the
    connections, :attr:`hanging` those the client still holds open (a client
    that gave up closes its end).
    """

    def __init__(self) -> None:
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self._listener.setblocking(False)
        self.host = "127.0.0.1"
        self.port = int(self._listener.getsockname()[1])
        self._clients: list[socket.socket] = []
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="hung-smtp", daemon=True)
        self._thread.start()

    @property
    def accepted(self) -> int:
        with self._lock:
            return len(self._clients)

    @property
    def hanging(self) -> int:
        with self._lock:
            return len(self._open)

    def _serve(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._listener, selectors.EVENT_READ)
            while not self._closed.is_set():
                for key, _events in selector.select(0.1):
                    if key.fileobj is self._listener:
                        try:
                            client, _address = self._listener.accept()
                        except OSError:
                            continue
                        client.setblocking(False)
                        selector.register(client, selectors.EVENT_READ)
                        with self._lock:
                            self._clients.append(client)
                            self._open.add(client)
                        continue
                    client = cast(socket.socket, key.fileobj)
                    try:
                        data = client.recv(4096)  # whatever the client says is ignored
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:  # the client gave up and closed its end
                        selector.unregister(client)
                        with self._lock:
                            self._open.discard(client)

    def close(self) -> None:
        self._closed.set()
        self._thread.join(5)
        self._listener.close()
        with self._lock:
            for client in self._clients:
                client.close()
            self._open.clear()


@pytest.fixture
def hung_smtp() -> Iterator[HungSmtp]:
    server = HungSmtp()
    try:
        yield server
    finally:
        server.close()


class SlowSmtp(SmtpSink):
    """An aiosmtpd listener that takes its time: it holds its answer to MAIL FROM
    ``mail`` seconds and its 250 after the data ``data`` seconds.

    A message is kept as soon as its data has come, before the held 250, as
    a real server has it then (and delivers it even when the client leaves
    before the answer). :meth:`wait_for_step` waits for the n-th ``mail``
    (MAIL FROM came), ``data`` (the data came) or ``answered`` (the 250 is
    being written), counted from the start.
    """

    def __init__(self, *, mail: float = 0.0, data: float = 0.0) -> None:
        super().__init__()
        self.hold_mail, self.hold_data = mail, data
        self.steps: list[str] = []

    def _step(self, what: str) -> None:
        with self._arrived:
            self.steps.append(what)
            self._arrived.notify_all()

    def wait_for_step(self, what: str, nth: int, seconds: float = 30.0) -> bool:
        """Whether the ``nth`` step ``what`` (1 for the first) came within ``seconds``."""
        with self._arrived:
            return self._arrived.wait_for(lambda: self.steps.count(what) >= nth, seconds)

    async def handle_MAIL(
        self, server: object, session: object, envelope: Any, address: str, options: list[str]
    ) -> str:
        self._step("mail")
        await asyncio.sleep(self.hold_mail)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_DATA(self, server: object, session: object, envelope: Any) -> str:
        answer = await super().handle_DATA(server, session, envelope)
        self._step("data")
        await asyncio.sleep(self.hold_data)
        self._step("answered")
        return answer


@contextlib.contextmanager
def slow_smtp(*, mail: float = 0.0, data: float = 0.0) -> Iterator[SlowSmtp]:
    """A started :class:`SlowSmtp`, stopped afterwards."""
    server = SlowSmtp(mail=mail, data=data)
    server.controller.start()
    try:
        yield server
    finally:
        server.controller.stop()


# Dovecot that restarts -------------------------------------------------------


class FrozenProxy:
    """A TCP relay to ``target`` on loopback that can be frozen: while frozen it
    keeps every connection open and passes nothing on, as a database host that
    stops answering (a network partition, a server stopped with SIGSTOP) does.
    ``held`` is set once the frozen relay keeps something back (a query or its
    answer): the client waits for an answer that does not come."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self.frozen = threading.Event()
        self.held = threading.Event()
        self._closing = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._listener.settimeout(0.2)
        self._threads: list[threading.Thread] = []
        self._sockets: list[socket.socket] = []
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)

    def _accept(self) -> None:
        while not self._closing.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                continue
            upstream = socket.create_connection(self.target)
            self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                thread = threading.Thread(target=self._pump, args=(a, b), daemon=True)
                thread.start()
                self._threads.append(thread)

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        source.settimeout(0.2)
        while not self._closing.is_set():
            if self.frozen.is_set():
                if select.select([source], [], [], 0)[0]:
                    self.held.set()
                time.sleep(0.05)
                continue
            try:
                data = source.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            with contextlib.suppress(OSError):
                sink.sendall(data)
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._closing.set()
        self._listener.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.close()


@dataclasses.dataclass
class PrivateDovecot:
    """A Dovecot of one test, with one account on it."""

    server: Dovecot
    account: ImapAccount

    def stop(self) -> None:
        self.server.stop()

    def start(self) -> None:
        """Start again on the same port; the accounts and their mail are kept."""
        self.server.start()
        login(self.account).logout()  # the account is there again

    def restart(self) -> float:
        """Stop, then start again; how long it was down, in seconds."""
        began = time.monotonic()
        self.stop()
        self.start()
        return time.monotonic() - began


@pytest.fixture
def private_dovecot() -> Iterator[PrivateDovecot]:
    """A Dovecot of the test's own (own folder and port) with a fresh account."""
    if shutil.which("dovecot") is None and not Path("/usr/sbin/dovecot").exists():
        unavailable("Dovecot is not installed (apt-get install dovecot-imapd)")
    root = Path(tempfile.mkdtemp(prefix="mailbot-dovecot-"))
    root.chmod(0o755)
    server = Dovecot(root)
    try:
        server.start()
        yield PrivateDovecot(server, server.account())
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


# the daemon as a process ------------------------------------------------------


def event_dates() -> tuple[datetime.date, datetime.date]:
    """A tournament that began a week ago and runs for a year, whenever the tests run
    (the daemon runs on the real date)."""
    today = datetime.datetime.now(datetime.UTC).date()
    return today - datetime.timedelta(days=7), today + datetime.timedelta(days=365)


def duel(index: str, name: str, white: str, black: str, director: str) -> str:
    """The start list of one game between ``white`` and ``black``, on :func:`event_dates`."""
    start, end = event_dates()
    return f"""
index: {index}
name: {name}
profile: bg-email
start: {start.isoformat()}
end: {end.isoformat()}
language: en
notation: en
director: {{name: Tom Director, email: {director}}}
players:
  - {{id: white, name: Walter White, email: {white}}}
  - {{id: black, name: Bella Black, email: {black}}}
games: [{{white: white, black: black}}]
"""


def daemon_mapping(base: Mapping[str, Any], **sections: Mapping[str, object]) -> dict[str, Any]:
    """A configuration for ``mailbot run``: ``base`` (shaped like
    ``harness.config_mapping``) with connect and read timeouts for IMAP and
    SMTP and INFO logging; ``sections`` change keys of a section
    (``smtp={"port": 2525}``)."""
    mapping = copy.deepcopy(dict(base))
    mapping["imap"] = {**mapping["imap"], "timeout": DAEMON_TIMEOUT}
    mapping["smtp"] = {**mapping["smtp"], "timeout": DAEMON_TIMEOUT}
    mapping["log_level"] = "INFO"
    for name, changes in sections.items():
        mapping[name] = {**mapping.get(name, {}), **changes}
    return mapping


def write_daemon_config(
    path: Path, base: Mapping[str, Any], **sections: Mapping[str, object]
) -> Path:
    """Write :func:`daemon_mapping` as YAML to ``path``; return ``path``."""
    path.write_text(yaml.safe_dump(daemon_mapping(base, **sections)))
    return path


@dataclasses.dataclass
class DaemonProcess:
    """One ``python -m mailbot run``; its stderr (and stdout) go to a file."""

    proc: BotProcess
    log: Path
    #: Where this run's output begins in ``log`` (the file may hold earlier runs).
    offset: int
    #: ``time.monotonic()`` when it was started.
    started: float

    def output(self) -> str:
        """What this run wrote so far."""
        with self.log.open("rb") as f:
            f.seek(self.offset)
            return f.read().decode(errors="replace")

    def tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of this run's output, for failure messages."""
        return "\n".join(self.output().splitlines()[-lines:])

    def running(self) -> bool:
        return self.proc.poll() is None

    def write_stacks(self) -> None:
        """Have the daemon write where each of its threads stands to its output, for a
        test that found it still running when it should have finished."""
        sizes = [self.log.stat().st_size]  # before the signal: the dump may come at once
        self.proc.send_signal(STACKS)

        def written() -> bool:
            """The log grew, then stopped growing: every thread's stack is there."""
            sizes.append(self.log.stat().st_size)
            return sizes[-1] > sizes[0] and sizes[-1] == sizes[-2]

        wait_until(written, 3.0)

    def state(self) -> str:
        code = self.proc.poll()
        return "still running" if code is None else f"exited with code {code}"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


_runs = itertools.count(1)


def start_daemon(config: Path, log: Path | None = None) -> DaemonProcess:
    """Start ``python -m mailbot run`` with ``MAILBOT_CONFIG=config`` (forked with the
    bot imported: :mod:`processes`).

    Its stderr and stdout are appended to ``log`` (default ``daemon.log``
    beside the config): a file, never a pipe, so the daemon never blocks on
    output nobody reads.
    """
    log = log if log is not None else config.parent / "daemon.log"
    offset = log.stat().st_size if log.exists() else 0
    with log.open("ab") as out:
        out.write(f"--- run {next(_runs)}\n".encode())
    proc = processes.start(
        ["run"], output=log, cwd=config.parent, env={"MAILBOT_CONFIG": str(config)}
    )
    return DaemonProcess(proc, log, offset, time.monotonic())


class Daemons:
    """Starts daemons and kills whichever still runs when the test ends."""

    def __init__(self) -> None:
        self.started: list[DaemonProcess] = []

    def start(self, config: Path, log: Path | None = None) -> DaemonProcess:
        daemon = start_daemon(config, log)
        self.started.append(daemon)
        return daemon

    def kill_all(self) -> None:
        for daemon in self.started:
            daemon.kill()


@pytest.fixture
def daemons() -> Iterator[Daemons]:
    registry = Daemons()
    try:
        yield registry
    finally:
        registry.kill_all()


def wait_until(predicate: Callable[[], object], seconds: float, interval: float = 0.1) -> bool:
    """Whether ``predicate()`` became true within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def within(
    daemon: DaemonProcess,
    check: Callable[[], object],
    seconds: float,
    what: str,
    state: Callable[[], str] | None = None,
) -> float:
    """Wait until ``check()`` holds; how many seconds that took.

    Fails the test, showing ``state()`` (what the check found) and the daemon's
    output, when it does not hold within ``seconds`` or the daemon exits first.
    """
    began = time.monotonic()
    wait_until(lambda: check() or not daemon.running(), seconds)
    if check():
        return time.monotonic() - began
    lines = 40
    if daemon.running():
        problem = f"not within {seconds:.0f} s (the daemon still runs)"
        daemon.write_stacks()
        lines = 150  # room for the stacks
    else:
        problem = f"the daemon exited first, with code {daemon.proc.returncode}"
    found = f"; {state()}" if state is not None else ""
    pytest.fail(f"{what}: {problem}{found}; its output ends:\n{daemon.tail(lines)}")


def sigterm_and_time(
    proc: subprocess.Popen[bytes] | BotProcess | DaemonProcess, limit: float = 15.0
) -> tuple[int, float]:
    """Send SIGTERM; the exit code and how many seconds the process took to exit.

    A process still running after ``limit`` seconds is killed (its code is
    then ``-9`` and the time ``limit``).
    """
    process = proc.proc if isinstance(proc, DaemonProcess) else proc
    began = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(limit)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return -signal.SIGKILL, limit
    return code, time.monotonic() - began
