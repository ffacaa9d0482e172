"""IDLE latency: how long a player waits for the bot's answer while the daemon runs.

Starts Dovecot, an SMTP listener and the real daemon (``python -m mailbot -c
CONFIG run``, waiting with IMAP IDLE), then delivers ``--moves`` moves one
at a time (IMAP APPEND stamped with the current time) and measures, for each,
the time from the APPEND to the arrival of the move mail to the opponent at
the SMTP listener. Prints min, median, p90 and max in milliseconds, then
stops the daemon with SIGTERM and checks that it exits 0 within a few seconds::

    python bench/idle_latency.py --moves 20
"""

from __future__ import annotations

import argparse
import datetime
import math
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from backlog import database, mail_servers, scenario
from harness import Federation
from imapclient import IMAPClient
from mailservers import ImapAccount

UTC = datetime.UTC


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``values``."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def wait_for_line(log: Path, text: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return True
        time.sleep(0.05)
    return False


def idle_notification(account: ImapAccount, rounds: int = 5) -> list[float]:
    """Milliseconds from an APPEND to the EXISTS a plain client in IDLE sees (no bot)."""
    folder = "Baseline"
    watcher = IMAPClient(account.host, port=account.port, ssl=False)
    writer = IMAPClient(account.host, port=account.port, ssl=False)
    times: list[float] = []
    try:
        for client in (watcher, writer):
            client.login(account.username, account.password)
        watcher.create_folder(folder)
        watcher.select_folder(folder)
        for _ in range(rounds):
            watcher.idle()
            appended = time.perf_counter()
            writer.append(folder, b"From: a@b.example\r\nSubject: ping\r\n\r\nping\r\n")
            deadline = appended + 60
            while time.perf_counter() < deadline:
                responses = watcher.idle_check(timeout=deadline - time.perf_counter())
                if any(len(r) > 1 and r[1] == b"EXISTS" for r in responses):
                    break
            times.append((time.perf_counter() - appended) * 1000)
            watcher.idle_done()
    finally:
        watcher.logout()
        writer.logout()
    return times


def fed_inbox_count(fed: Federation) -> int | str:
    """Messages waiting in the bot's inbox (or why they could not be counted)."""
    try:
        return fed.pending_in_inbox()
    except Exception as exc:  # the client may be gone after a failure
        return f"unknown ({exc})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=20, help="moves delivered one at a time")
    parser.add_argument("--database", metavar="URL", help="SQLAlchemy URL (default: SQLite)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait per move")
    parser.add_argument(
        "--pause",
        type=float,
        default=1.0,
        help="seconds between an answer's arrival and the next move (0: at once)",
    )
    args = parser.parse_args(argv)

    today = datetime.datetime.now(UTC).date()
    plan = scenario(args.moves, start=(today - datetime.timedelta(days=1)).isoformat())
    latencies: list[float] = []
    missed: str | None = None
    waiting: int | str = 0
    with mail_servers() as (dovecot, sink, root), database(args.database, root) as url:
        fed = Federation(url, dovecot.account(), sink, plan.start_list, root)
        assert fed.config_path is not None
        baseline = idle_notification(fed.imap)
        log = root / "daemon.log"
        with log.open("wb") as err:
            daemon = subprocess.Popen(
                [sys.executable, "-m", "mailbot", "-c", str(fed.config_path), "run"],
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        try:
            if not wait_for_line(log, "connected to", 30.0):
                print("the daemon did not connect; its log:\n" + log.read_text(), file=sys.stderr)
                return 1
            time.sleep(0.5)  # let it finish its first (empty) pass and enter IDLE
            for letter in plan.letters:
                time.sleep(args.pause)
                before = len(sink.arrivals)
                appended = time.perf_counter()
                fed.write(
                    letter.sender, letter.body, datetime.datetime.now(UTC), subject=letter.subject
                )
                arrivals = sink.wait_arrivals(before + 2, args.timeout)
                if len(arrivals) < before + 2:
                    missed = f"move {len(latencies) + 1} ({letter.subject})"
                    waiting = fed_inbox_count(fed)
                    break
                opponent = next(
                    arrivals[i] for i in range(before, len(arrivals)) if sink.event(i) == "move"
                )
                latencies.append((opponent - appended) * 1000)
        finally:
            stopping = time.perf_counter()
            daemon.send_signal(signal.SIGTERM)
            try:
                status: int | None = daemon.wait(10)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
                status = None
            stopped = time.perf_counter() - stopping
            fed.close()
        failures = log.read_text(errors="replace").count(" ERROR ")
        if missed is not None:
            print("the daemon's log:\n" + log.read_text(errors="replace"), file=sys.stderr)
            print(f"messages waiting in the inbox: {waiting}", file=sys.stderr)
            server_log = dovecot.root / "dovecot.log"
            if server_log.exists():
                tail = server_log.read_text(errors="replace").splitlines()[-20:]
                print("Dovecot's log:\n" + "\n".join(tail), file=sys.stderr)

    print(f"moves:            {len(latencies)} (APPEND to the opponent's move mail)")
    if latencies:
        print(f"min:              {min(latencies):.0f} ms")
        print(f"median:           {statistics.median(latencies):.0f} ms")
        print(f"p90:              {percentile(latencies, 0.9):.0f} ms")
        print(f"max:              {max(latencies):.0f} ms")
    print(
        f"IDLE alone:       median {statistics.median(baseline):.0f} ms "
        "(APPEND to EXISTS for a plain client in IDLE, no bot)"
    )
    if missed is not None:
        print(f"no answer:        to {missed} within {args.timeout:.0f} s")
    if status is None:
        print("SIGTERM:          the daemon did not stop within 10 s (killed)")
    else:
        print(f"SIGTERM:          exit status {status} after {stopped * 1000:.0f} ms")
    print(f"errors logged:    {failures}")
    return 0 if status == 0 and stopped < 5.0 and failures == 0 and missed is None else 1


if __name__ == "__main__":
    raise SystemExit(main())
