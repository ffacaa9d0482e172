"""The throwaway host of ``tests/test_install_guide.py``: its stand-ins for the commands
that would change the machine, run as ``python -S installhost.py NAME STATE ARGS...``.

It imports nothing but the standard library: each call the guide makes starts a
Python of its own, which would otherwise load pytest and the mail servers' helpers
every time.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

PLACE = re.compile(r"(?<![\w.~])/(?=(?:etc|var|opt)/)")


def moved(text: str, root: Path) -> str:
    """``text`` with the absolute places of the host under ``root``.

    >>> moved("sqlite:////var/lib/m.db -/etc/m /usr/sbin/x a/etc/b", Path("/r"))
    'sqlite:////r/var/lib/m.db -/r/etc/m /usr/sbin/x a/etc/b'
    """
    return PLACE.sub(str(root).replace("\\", "\\\\") + "/", text)


# --- the stand-ins -----------------------------------------------------------------


def _record(state: Path, name: str, args: list[str]) -> None:
    with (state / "calls.jsonl").open("a") as calls:
        calls.write(json.dumps([name, *args]) + "\n")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (ProcessLookupError, FileNotFoundError):
        return False
    return fields[0] != "Z"


def daemon_pid(state: Path) -> int | None:
    pidfile = state / "mailbot.pid"
    if pidfile.exists() and _alive(pid := int(pidfile.read_text())):
        return pid
    return None


def _unit(state: Path) -> dict[str, str] | None:
    """The installed unit's [Service] keys (the last of each), paths moved under root."""
    root = state / "root"
    unit = root / "etc/systemd/system/mailbot.service"
    if not unit.exists():
        return None
    files = [unit, *sorted((root / "etc/systemd/system/mailbot.service.d").glob("*.conf"))]
    keys: dict[str, str] = {}
    for file in files:
        for line in file.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep and not line.startswith("#"):
                keys[key.strip()] = moved(value.strip(), root)
    return keys


def _environment(file: str) -> dict[str, str]:
    """An EnvironmentFile as systemd reads one: NAME=value, a value in quotes whole."""
    path = Path(file.removeprefix("-"))
    if not path.exists():
        return {}
    found = {}
    for line in path.read_text().splitlines():
        name, sep, value = line.strip().partition("=")
        if sep and not name.startswith(("#", ";")):
            found[name] = value[1:-1] if value[:1] in "'\"" and len(value) > 1 else value
    return found


def _start(state: Path) -> int:
    if daemon_pid(state) is not None:
        return 0
    keys = _unit(state)
    if keys is None:
        print("Unit mailbot.service not found.", file=sys.stderr)
        return 5
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    env.update(_environment(keys.get("EnvironmentFile", "-/nonexistent")))
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(state / "notify"))
    notify.settimeout(0.5)
    env["NOTIFY_SOCKET"] = str(state / "notify")
    with (state / "journal").open("ab") as journal:
        proc = subprocess.Popen(
            shlex.split(keys["ExecStart"]), cwd=keys.get("WorkingDirectory"), env=env,
            stdin=subprocess.DEVNULL, stdout=journal, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    (state / "mailbot.pid").write_text(str(proc.pid))
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if "READY=1" in notify.recv(4096).decode().splitlines():
                    return 0
            except TimeoutError:
                continue
        print("Job for mailbot.service failed; its journal says:", file=sys.stderr)
        print((state / "journal").read_text()[-2000:], file=sys.stderr)
        return 1
    finally:
        notify.close()
        (state / "notify").unlink()


def stop_daemon(state: Path) -> int:
    pid = daemon_pid(state)
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
    return 0


def _systemctl(state: Path, args: list[str]) -> int:
    now = "--now" in args
    verb, *units = [a for a in args if not a.startswith("--")]
    if units and units != ["mailbot"]:
        print(f"Unit {units[0]} not found.", file=sys.stderr)
        return 5
    if verb == "daemon-reload":
        return 0
    if verb in ("enable", "disable") and _unit(state) is None:
        print("Unit file mailbot.service does not exist.", file=sys.stderr)
        return 1
    if verb == "status":
        running = daemon_pid(state) is not None
        print("● mailbot.service - Mailbot")
        print("     Active: " + ("active (running)" if running else "inactive (dead)"))
        return 0 if running else 3
    if verb in ("stop", "restart") or (verb == "disable" and now):
        stop_daemon(state)
    if verb in ("start", "restart") or (verb == "enable" and now):
        return _start(state)
    return 0 if verb in ("enable", "disable", "stop") else 1


def standin(name: str, state: Path, args: list[str]) -> int:
    """What the stand-in ``name`` does with ``args``."""
    _record(state, name, args)
    if name == "runuser":
        assert args[:1] == ["-u"] and args[2:3] == ["--"], args
        os.execvp(args[3], args[3:])
    if name == "install":
        kept, skip = [], False
        for arg in args:
            if not skip and arg in ("-o", "-g"):
                skip = True
            elif skip:
                skip = False
            elif not arg.startswith(("--owner=", "--group=")):
                kept.append(arg)
        os.execv("/usr/bin/install", ["install", *kept])
    if name == "systemctl":
        return _systemctl(state, args)
    if name == "journalctl":
        journal = state / "journal"
        if journal.exists():
            print("\n".join(journal.read_text().splitlines()[-20:]))
        return 0
    return 0  # apt-get, useradd, userdel: recorded


if __name__ == "__main__":
    sys.exit(standin(sys.argv[1], Path(sys.argv[2]), sys.argv[3:]))
