"""Reading raw mail: the corpus of real-looking messages and the rules one by one."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import pathlib
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailbot.mail.automail import AutoKind
from mailbot.mail.charsets import decode_text
from mailbot.mail.headers import decode_header, game_tag, subject_core
from mailbot.mail.htmltext import html_to_text
from mailbot.mail.letters import Letter, is_machine_mail, read_letter
from mailbot.mail.quoting import new_text

CORPUS = pathlib.Path(__file__).parent / "corpus"
EXPECTED: dict[str, dict[str, Any]] = yaml.safe_load(
    (CORPUS / "expected.yaml").read_text(encoding="utf-8")
)
BOT = "chess@example.net"


def mail(head: str, body: str | bytes = "", **params: str) -> bytes:
    """A raw message: header lines (``\\n`` separated) and a body."""
    lines = [line for line in head.strip("\n").split("\n") if line]
    data = body.encode("utf-8") if isinstance(body, str) else body
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + data


def plain(body: str | bytes, charset: str | None = "utf-8", extra: str = "") -> bytes:
    """A simple text/plain message from a player, 8bit."""
    ctype = "text/plain" + (f'; charset="{charset}"' if charset is not None else "")
    return mail(
        "From: Ivan Ivanov <ivanov@example.org>\n"
        "To: chess@example.net\n"
        "Subject: Re: [BG-2026-E1/7] move\n"
        "Message-ID: <m1@example.org>\n"
        f"Content-Type: {ctype}\n"
        "Content-Transfer-Encoding: 8bit\n" + extra,
        body,
    )


# ---------------------------------------------------------------------------
# The corpus


def test_corpus_is_complete() -> None:
    files = {p.name for p in CORPUS.glob("*.eml")}
    assert files == set(EXPECTED), "every message has expectations and vice versa"
    assert len(files) >= 40


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_message(name: str) -> None:
    expected = EXPECTED[name]
    raw = (CORPUS / name).read_bytes()
    letter = read_letter(raw, own_addresses={BOT})
    for text in expected["body_contains"]:
        assert text in letter.body, f"{text!r} missing from the new text:\n{letter.body}"
    for text in expected["body_excludes"]:
        assert text not in letter.body, f"{text!r} read from quote/signature:\n{letter.body}"
    assert letter.subject_core == expected["subject_core"]
    assert letter.game_tag == expected["game_tag"]
    assert letter.auto == (AutoKind(expected["auto"]) if expected["auto"] else None)
    assert letter.garbled == expected["garbled"]
    assert letter.from_addr == expected["from_addr"]
    if "message_id" in expected:
        assert letter.message_id == expected["message_id"]
    else:
        assert letter.message_id
    assert letter.raw_sha256 == hashlib.sha256(raw).hexdigest()
    full_lines = {line.strip() for line in letter.full_text.split("\n")}
    assert all(line.strip() in full_lines for line in letter.body.split("\n"))
    assert "\ufffd" not in letter.body or letter.garbled


def test_corpus_shows_every_kind_of_machine_mail() -> None:
    seen = {e["auto"] for e in EXPECTED.values()}
    assert {k.value for k in AutoKind} <= seen


def test_corpus_replies_quote_a_different_move_than_they_make() -> None:
    """Reading the quote instead of the new text would be noticed: most replies exclude text."""
    replies = [e for e in EXPECTED.values() if e["auto"] is None]
    assert sum(1 for e in replies if e["body_excludes"]) >= 35


# ---------------------------------------------------------------------------
# Headers: addresses, ids, dates, subject


def test_addresses_are_lower_case_and_names_decoded() -> None:
    letter = read_letter(
        mail(
            "From: =?UTF-8?B?0JjQstCw0L0g0JjQstCw0L3QvtCy?= <Ivanov@Example.ORG>\n"
            "To: Chess <CHESS@example.net>, td@Example.net\n"
            "Cc: Petar <Petrov@example.org>\n",
            "hi",
        )
    )
    assert letter.from_addr == "ivanov@example.org"
    assert letter.from_name == "Иван Иванов"
    assert letter.to_addrs == ("chess@example.net", "td@example.net")
    assert letter.cc_addrs == ("petrov@example.org",)


def test_missing_from_gives_empty_address() -> None:
    letter = read_letter(mail("Subject: hello", "12. Nf3"))
    assert (letter.from_addr, letter.from_name) == ("", "")
    assert letter.body == "12. Nf3"


def test_message_ids_lose_angle_brackets_and_whitespace() -> None:
    letter = read_letter(
        mail(
            "From: a@example.org\n"
            "Message-ID:\n <abc.1@example.org>\n"
            "In-Reply-To: <x1@example.net> (Bot's message of Mon)\n"
            "References: <r1@example.net>\n <r2@example.net>\n"
            "References: <r3@example.net>\n",
            "x",
        )
    )
    assert letter.message_id == "abc.1@example.org"
    assert letter.in_reply_to == ("x1@example.net",)
    assert letter.references == ("r1@example.net", "r2@example.net", "r3@example.net")


def test_message_without_message_id() -> None:
    letter = read_letter(mail("From: a@example.org", "x"))
    assert letter.message_id is None
    assert letter.in_reply_to == ()
    assert letter.references == ()


def test_date_header_is_read_but_broken_dates_are_none() -> None:
    good = read_letter(mail("From: a@example.org\nDate: Mon, 2 Mar 2026 10:15:00 +0200", "x"))
    assert good.date_header == datetime(2026, 3, 2, 10, 15, tzinfo=timezone(timedelta(hours=2)))
    bad = read_letter(mail("From: a@example.org\nDate: the day after tomorrow", "x"))
    assert bad.date_header is None


def test_authentication_results_are_kept_raw_and_all() -> None:
    letter = read_letter(
        mail(
            "Authentication-Results: mx.example.net; dmarc=pass\n"
            "  header.from=example.org\n"
            "Authentication-Results: evil.example.com; dmarc=pass\n"
            "From: a@example.org\n",
            "x",
        )
    )
    assert letter.authentication_results == (
        "mx.example.net; dmarc=pass  header.from=example.org",
        "evil.example.com; dmarc=pass",
    )


def test_selected_headers_are_kept_with_lower_case_keys() -> None:
    letter = read_letter(mail("From: a@example.org\nReply-To: b@example.org\nX-Other: 1", "x"))
    assert letter.headers["reply-to"] == "b@example.org"
    assert "x-other" not in letter.headers


@pytest.mark.parametrize(
    ("subject", "core"),
    [
        ("Re: [BG-2026-E1/7] move", "[BG-2026-E1/7] move"),
        ("RE: RE: move", "move"),
        ("Fwd: move", "move"),
        ("FW: move", "move"),
        ("Fw: move", "move"),
        ("Отг: ход", "ход"),
        ("Отг.: ход", "ход"),
        ("Отв: ход", "ход"),
        ("Ответ: ход", "ход"),
        ("AW: WG: Zug", "Zug"),
        ("SV: drag", "drag"),
        ("Réf : coup", "coup"),
        ("RE : coup", "coup"),
        ("Re[2]: move", "move"),
        ("Re: Fwd: Re[2]: move", "move"),
        ("re:Re:  move   now", "move now"),
        ("Resign", "Resign"),
        ("Reminder: move", "Reminder: move"),
        ("Fwdx: move", "Fwdx: move"),
        ("[BG-2026-E1/7] Re: move", "[BG-2026-E1/7] Re: move"),
    ],
)
def test_subject_core_strips_reply_and_forward_prefixes(subject: str, core: str) -> None:
    assert subject_core(subject) == core


@pytest.mark.parametrize(
    ("subject", "tag"),
    [
        ("Re: [BG-2026-E1/7] Ivanov – Petrov: move", "BG-2026-E1/7"),
        ("[ICCF-2026-WS1/12]", "ICCF-2026-WS1/12"),
        ("Re: [club_cup.2026/3] move", "club_cup.2026/3"),
        ("[БГ-2026/4] ход", "БГ-2026/4"),
        ("[ BG-2026-E1 / 07 ] move", "BG-2026-E1/7"),
        ("[Chess-club] Opening of the week", None),
        ("BG-2026-E1/7 without brackets", None),
        ("[BG 2026/7] space in index", None),
        ("", None),
    ],
)
def test_game_tag(subject: str, tag: str | None) -> None:
    assert game_tag(subject) == tag


def test_subject_is_decoded_and_whitespace_normalised() -> None:
    letter = read_letter(
        mail(
            "From: a@example.org\n"
            "Subject: Re:  =?windows-1251?B?yu7s5e3y4PA=?=\n"
            "  =?windows-1251?B?IO3gIO/g8PLo//Lg?=\t[BG-2026-E1/7]\n",
            "x",
        )
    )
    assert letter.subject == "Re: Коментар на партията [BG-2026-E1/7]"
    assert letter.subject_core == "Коментар на партията [BG-2026-E1/7]"
    assert letter.game_tag == "BG-2026-E1/7"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("=?utf-8?Q?=D1=85=D0=BE=D0=B4_12?=", "ход 12"),
        ("=?UTF-8?B?0YXQvtC0?= 12", "ход 12"),
        ("=?koi8-r?Q?=C8=CF=C4?=", "ход"),
        ("=?windows-1251?B?9e7k?=", "ход"),
        ("=?iso-8859-5?B?5d7U?=", "ход"),
        ("=?utf-8*bg?Q?=D1=85=D0=BE=D0=B4?=", "ход"),
        ("=?UTF-8?B?0Q==?= =?UTF-8?B?hdC+0LQ=?=", "ход"),  # a letter split between two words
        ("a =?utf-8?Q?b?=  =?utf-8?Q?c?= d", "a bc d"),
        ("plain [BG-2026-E1/7]", "plain [BG-2026-E1/7]"),
        ("=?x-unknown?Q?abc?=", "abc"),
        ("=?utf-8?B?###?=", ""),
    ],
)
def test_decode_header(value: str, text: str) -> None:
    assert decode_header(value) == text


def test_raw_8bit_headers_are_decoded() -> None:
    raw = (
        b"From: =?utf-8?B?0JjQstCw0L0=?= <ivanov@example.org>\r\n"
        b"Subject: Re: [BG-2026-E1/7] " + "ход Кg1-f3".encode("cp1251") + b"\r\n\r\nx"
    )
    letter = read_letter(raw)
    assert letter.subject == "Re: [BG-2026-E1/7] ход Кg1-f3"
    raw = b"From: " + "Иван".encode() + b" <ivanov@example.org>\r\n\r\nx"
    assert read_letter(raw).from_name == "Иван"


# ---------------------------------------------------------------------------
# Machine mail


@pytest.mark.parametrize(
    ("head", "kind"),
    [
        ("Auto-Submitted: auto-replied", AutoKind.AUTO_SUBMITTED),
        ("Auto-Submitted: auto-generated; type=vacation", AutoKind.AUTO_SUBMITTED),
        ("Auto-Submitted: no", None),
        ("Precedence: bulk", AutoKind.PRECEDENCE),
        ("Precedence: junk", AutoKind.PRECEDENCE),
        ("Precedence: List", AutoKind.PRECEDENCE),
        ("Precedence: first-class", None),
        ("List-Id: Chess club <club.example.org>", AutoKind.MAILING_LIST),
        ("List-Unsubscribe: <mailto:leave@example.org>", AutoKind.MAILING_LIST),
        ("List-Post: <mailto:club@example.org>", AutoKind.MAILING_LIST),
        ("Return-Path: <>", AutoKind.EMPTY_RETURN_PATH),
        ("Return-Path: < >", AutoKind.EMPTY_RETURN_PATH),
        ("Return-Path: <ivanov@example.org>", None),
        ("X-Autoreply: yes", AutoKind.AUTOREPLY),
        ("X-Autorespond: Thanks", AutoKind.AUTOREPLY),
        ("X-Auto-Response-Suppress: All", AutoKind.AUTOREPLY),
        ("X-Auto-Response-Suppress: DR, OOF", AutoKind.AUTOREPLY),
        ("X-Auto-Response-Suppress: DR, RN", None),
        ("X-Mailbot-Event: move", AutoKind.OWN_MAIL),
        ("X-Failed-Recipients: x@example.com", AutoKind.DELIVERY_REPORT),
        ("Content-Type: multipart/report; report-type=delivery-status", AutoKind.DELIVERY_REPORT),
        ("X-Mailer: Outlook", None),
    ],
)
def test_machine_mail_headers(head: str, kind: AutoKind | None) -> None:
    letter = read_letter(mail(f"From: Ivan <ivanov@example.org>\n{head}", "12. Nf3"))
    assert letter.auto == kind
    assert is_machine_mail(letter) == (kind is not None)


@pytest.mark.parametrize(
    "sender", ["MAILER-DAEMON@mx.example.com", "postmaster@example.org", "Mailer-Daemon"]
)
def test_mailer_daemon_and_postmaster_senders(sender: str) -> None:
    letter = read_letter(mail(f"From: Mail System <{sender}>", "failed"))
    assert letter.auto is AutoKind.MAILER_DAEMON


def test_delivery_status_part_marks_a_report() -> None:
    raw = mail(
        'From: mx@example.net\nContent-Type: multipart/mixed; boundary="b"',
        "--b\r\nContent-Type: text/plain\r\n\r\nfailed\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nAction: failed\r\n--b--\r\n",
    )
    assert read_letter(raw).auto is AutoKind.DELIVERY_REPORT


def test_forwarded_bounce_inside_a_players_mail_is_not_a_report() -> None:
    inner = (
        "From: MAILER-DAEMON@example.com\r\nContent-Type: multipart/report; boundary=i\r\n\r\n"
        "--i\r\nContent-Type: message/delivery-status\r\n\r\nAction: failed\r\n--i--\r\n"
    )
    raw = mail(
        'From: ivanov@example.org\nContent-Type: multipart/mixed; boundary="b"',
        "--b\r\nContent-Type: text/plain\r\n\r\nMy move got bounced: 12. Nf3\r\n"
        f"--b\r\nContent-Type: message/rfc822\r\n\r\n{inner}\r\n--b--\r\n",
    )
    letter = read_letter(raw)
    assert letter.auto is None
    assert letter.body == "My move got bounced: 12. Nf3"


def test_own_addresses_mark_our_mail_and_win_over_other_reasons() -> None:
    raw = mail("From: Chess <Chess@Example.net>\nAuto-Submitted: auto-generated", "x")
    assert read_letter(raw).auto is AutoKind.AUTO_SUBMITTED
    assert read_letter(raw, own_addresses=["chess@example.net"]).auto is AutoKind.OWN_MAIL
    raw = mail("From: Chess <chess@example.net>\nX-Mailbot-Event: move\nPrecedence: bulk", "x")
    assert read_letter(raw).auto is AutoKind.OWN_MAIL


# ---------------------------------------------------------------------------
# Charsets and transfer encodings

TEXT_BG = "Здравейте, моят ход е 12... Кg8-f6, предлагам реми."
TEXT_RU = "Добрый день! Мой ход: 23... Крg8-h7. Предлагаю ничью."


@pytest.mark.parametrize(
    ("label", "codec"),
    [
        ("utf-8", "utf-8"),
        ("UTF-8", "utf-8"),
        ("utf8", "utf-8"),
        ("unicode-1-1-utf-8", "utf-8"),
        ("windows-1251", "cp1251"),
        ("win-1251", "cp1251"),
        ("x-cp1251", "cp1251"),
        ("windows1251", "cp1251"),
        ("cp-1251", "cp1251"),
        ("cp1251", "cp1251"),
        ("koi8-r", "koi8-r"),
        ("KOI8R", "koi8-r"),
        ("koi8-u", "koi8-u"),
        ("iso-8859-5", "iso8859-5"),
        ("ISO_8859-5", "iso8859-5"),
        ("cp866", "cp866"),
        ("ibm866", "cp866"),
    ],
)
def test_charsets_and_their_broken_aliases(label: str, codec: str) -> None:
    for text in (TEXT_BG, TEXT_RU):
        letter = read_letter(plain(text.encode(codec), label))
        assert letter.body == text
        assert not letter.garbled


@pytest.mark.parametrize("codec", ["utf-8", "cp1251", "koi8-r", "cp866", "iso8859-5"])
def test_missing_charset_is_guessed_from_the_letters(codec: str) -> None:
    for text in (TEXT_BG, TEXT_RU):
        letter = read_letter(plain(text.encode(codec), charset=None))
        assert letter.body == text
        assert not letter.garbled


@pytest.mark.parametrize("codec", ["cp1251", "koi8-r"])
def test_a_bare_move_without_charset_keeps_its_piece_letter(codec: str) -> None:
    assert read_letter(plain("12. Кg1-f3".encode(codec), None)).body == "12. Кg1-f3"
    assert read_letter(plain("23... Крg8-h7".encode(codec), None)).body == "23... Крg8-h7"


def test_us_ascii_label_with_8bit_bytes_is_guessed() -> None:
    letter = read_letter(plain(TEXT_BG.encode("cp1251"), "us-ascii"))
    assert letter.body == TEXT_BG


def test_unknown_charset_is_guessed_but_marked_garbled() -> None:
    letter = read_letter(plain(TEXT_BG.encode("cp1251"), "x-no-such-charset"))
    assert letter.body == TEXT_BG
    assert letter.garbled


@pytest.mark.parametrize("label", ["base64", "rot13", "undefined", "hex", "utf-8; x", "ж"])
def test_labels_that_are_no_text_charsets(label: str) -> None:
    letter = read_letter(plain(b"12. Nf3", label))
    assert letter.body == "12. Nf3"
    assert letter.garbled


def test_utf8_label_on_windows_1251_bytes_is_recovered_but_garbled() -> None:
    letter = read_letter(plain(TEXT_BG.encode("cp1251"), "utf-8"))
    assert letter.body == TEXT_BG
    assert letter.garbled


def test_truncated_utf8_is_garbled() -> None:
    letter = read_letter(plain(TEXT_BG.encode("utf-8")[:-30] + "ф".encode()[:1], "utf-8"))
    assert letter.body.startswith("Здравейте, моят ход е 12... Кg8-f6")
    assert letter.garbled


def test_decode_text_flags_control_characters() -> None:
    assert decode_text(b"12. Nf3\x00\x01", "utf-8").garbled
    assert not decode_text(b"12. Nf3\t\r\n", "utf-8").garbled


@pytest.mark.parametrize("encoding", ["quoted-printable", "base64", "7bit", "8bit", "binary"])
def test_transfer_encodings(encoding: str) -> None:
    text = "Здравей,\r\n\r\n12... Кg8-f6 =сега=\r\n"
    data = text.encode("utf-8")
    if encoding == "quoted-printable":
        data = (
            b"=D0=97=D0=B4=D1=80=D0=B0=D0=B2=D0=B5=D0=B9,\r\n\r\n12... =D0=9Ag8-f6 =3D=D1=81=\r\n"
            b"=D0=B5=D0=B3=D0=B0=3D\r\n"
        )
    elif encoding == "base64":
        data = base64.encodebytes(data)
    raw = mail(
        "From: a@example.org\nContent-Type: text/plain; charset=utf-8\n"
        f"Content-Transfer-Encoding: {encoding}",
        data,
    )
    letter = read_letter(raw)
    assert letter.body == "Здравей,\n\n12... Кg8-f6 =сега="
    assert not letter.garbled


def test_broken_base64_is_garbled() -> None:
    data = base64.b64encode("12... Кg8-f6 и предлагам реми".encode())[:-3]
    raw = mail(
        "From: a@example.org\nContent-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: base64",
        data,
    )
    letter = read_letter(raw)
    assert letter.body.startswith("12... Кg8-f6")
    assert letter.garbled


# ---------------------------------------------------------------------------
# MIME structure


def multipart(subtype: str, *parts: str, boundary: str = "b") -> str:
    inner = "".join(f"--{boundary}\r\n{p}\r\n" for p in parts)
    return f'Content-Type: multipart/{subtype}; boundary="{boundary}"\r\n\r\n{inner}--{boundary}--'


PLAIN_PART = "Content-Type: text/plain; charset=utf-8\r\n\r\n12... Nc6 (plain)"
HTML_PART = "Content-Type: text/html; charset=utf-8\r\n\r\n<p>12... Nc6 (html)</p>"


def test_alternative_prefers_plain_text() -> None:
    raw = b"From: a@example.org\r\n" + multipart("alternative", PLAIN_PART, HTML_PART).encode()
    assert read_letter(raw).body == "12... Nc6 (plain)"
    raw = b"From: a@example.org\r\n" + multipart("alternative", HTML_PART, PLAIN_PART).encode()
    assert read_letter(raw).body == "12... Nc6 (plain)"


def test_alternative_falls_back_to_html_when_plain_is_empty() -> None:
    empty = "Content-Type: text/plain; charset=utf-8\r\n\r\n  \r\n"
    raw = b"From: a@example.org\r\n" + multipart("alternative", empty, HTML_PART).encode()
    assert read_letter(raw).body == "12... Nc6 (html)"


def test_nested_multiparts_and_attachments() -> None:
    alternative = multipart("alternative", PLAIN_PART, HTML_PART, boundary="alt")
    related = multipart(
        "related", alternative, "Content-Type: image/png\r\n\r\niVBORw0K", boundary="rel"
    )
    pgn = 'Content-Type: text/plain; name="game.pgn"\r\n\r\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *'
    analysis = "Content-Type: text/plain\r\nContent-Disposition: attachment\r\n\r\n12... Nf6 better"
    raw = b"From: a@example.org\r\n" + multipart("mixed", related, pgn, analysis).encode()
    letter = read_letter(raw)
    assert letter.body == "12... Nc6 (plain)"
    assert "Bb5" not in letter.full_text
    assert "Nf6" not in letter.full_text


def test_inline_text_parts_of_a_mixed_message_are_joined() -> None:
    second = "Content-Type: text/plain; charset=utf-8\r\n\r\nI offer a draw."
    image = 'Content-Type: image/jpeg\r\nContent-Disposition: inline; filename="a.jpg"\r\n\r\nxx'
    raw = b"From: a@example.org\r\n" + multipart("mixed", PLAIN_PART, image, second).encode()
    assert read_letter(raw).body == "12... Nc6 (plain)\nI offer a draw."


def test_forwarded_message_parts_are_not_read() -> None:
    forwarded = (
        "Content-Type: message/rfc822\r\n\r\nFrom: b@example.org\r\nSubject: x\r\n\r\n13. Nf3"
    )
    raw = b"From: a@example.org\r\n" + multipart("mixed", PLAIN_PART, forwarded).encode()
    letter = read_letter(raw)
    assert letter.body == "12... Nc6 (plain)"
    assert "Nf3" not in letter.full_text


def test_alternative_without_any_text_keeps_the_garbled_mark() -> None:
    broken = "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n0"
    raw = b"From: a@example.org\r\n" + multipart("alternative", broken).encode()
    letter = read_letter(raw)
    assert letter.body == ""
    assert letter.garbled


def test_signed_message_reads_the_first_part() -> None:
    signature = "Content-Type: application/pgp-signature\r\n\r\n-----BEGIN PGP SIGNATURE-----"
    raw = b"From: a@example.org\r\n" + multipart("signed", PLAIN_PART, signature).encode()
    assert read_letter(raw).body == "12... Nc6 (plain)"


def test_multipart_without_boundary_is_garbled() -> None:
    raw = mail("From: a@example.org\nContent-Type: multipart/mixed", "--x\r\n\r\n12. Nf3")
    letter = read_letter(raw)
    assert letter.body == ""
    assert letter.garbled


def test_missing_closing_boundary_is_garbled() -> None:
    raw = b"From: a@example.org\r\n" + multipart("mixed", PLAIN_PART).encode()[:-6]
    letter = read_letter(raw)
    assert letter.body == "12... Nc6 (plain)"
    assert letter.garbled


def test_html_charset_from_meta_when_the_header_has_none() -> None:
    body = '<html><head><meta charset="koi8-r"></head><body>ход Кg1-f3</body></html>'
    raw = mail("From: a@example.org\nContent-Type: text/html", body.encode("koi8-r"))
    assert read_letter(raw).body == "ход Кg1-f3"


def test_format_flowed_is_unwrapped() -> None:
    body = (
        "I play 19. Qd1-h5 and offer a draw; if you \r\n"
        "decline, reply as usual.\r\n"
        "-- \r\n"
        "Nikolai\r\n"
    )
    raw = mail("From: a@example.org\nContent-Type: text/plain; charset=utf-8; format=flowed", body)
    letter = read_letter(raw)
    assert letter.body == "I play 19. Qd1-h5 and offer a draw; if you decline, reply as usual."


def test_format_flowed_delsp_and_quotes() -> None:
    body = "12... Nc6 and a lo \r\nng word\r\n> quoted and  \r\n> continued\r\n"
    raw = mail(
        "From: a@example.org\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=yes",
        body,
    )
    letter = read_letter(raw)
    assert letter.body == "12... Nc6 and a long word"
    assert "> quoted and continued" in letter.full_text


# ---------------------------------------------------------------------------
# HTML


def test_html_layout_entities_and_hidden_parts() -> None:
    page = (
        "<html><head><title>Mail</title><style>p {color: red}</style>"
        "<script>var x = '1. e4';</script></head><body>"
        "<p>Hello&nbsp;Ivan &amp; Co,</p><div>12... &#1050;g8-f6<br>draw?</div>"
        "<ul><li>one</li><li>two</li></ul><table><tr><td>a</td><td>b</td></tr>"
        "<tr><td>c</td></tr></table></body></html>"
    )
    text = html_to_text(page)
    assert text.unquoted == "Hello Ivan & Co,\n12... Кg8-f6\ndraw?\none\ntwo\na b\nc"
    assert text.full == text.unquoted
    assert not text.broken


def test_html_blank_lines_from_br_and_empty_divs() -> None:
    assert html_to_text("<div>a</div><div><br></div><div>b</div>").unquoted == "a\n\nb"
    assert html_to_text("a<br><br><br><br>b").unquoted == "a\n\nb"


@pytest.mark.parametrize(
    "quote",
    [
        "<blockquote>12. Nf3</blockquote>",
        '<blockquote type="cite">12. Nf3</blockquote>',
        '<div class="gmail_quote"><div class="gmail_attr">On Mon X wrote:</div>'
        '<blockquote class="gmail_quote">12. Nf3</blockquote></div>',
        '<div class="moz-cite-prefix">On 02.03.26 X wrote:<br></div>'
        '<blockquote type="cite">12. Nf3</blockquote>',
        '<div class="yahoo_quoted">12. Nf3</div>',
        '<div class="gmail_signature">Nf3 chess club</div>',
        '<pre class="moz-signature">-- \nNf3 chess club</pre>',
        '<div id="Signature">Nf3 chess club</div>',
    ],
)
def test_html_quotes_and_signatures_are_dropped_but_text_after_them_kept(quote: str) -> None:
    page = f"<div>Hi,</div>{quote}<div>12... Nc6</div>"
    text = html_to_text(page)
    assert text.unquoted == "Hi,\n12... Nc6"
    assert "Nf3" in text.full


@pytest.mark.parametrize(
    "mark",
    [
        '<div id="divRplyFwdMsg"><b>From:</b> Bot</div>',
        '<div id="appendonsend"></div>',
        '<hr id="stopSpelling">',
        '<div id="mail-editor-reference-message-container"></div>',
    ],
)
def test_html_outlook_marks_cut_everything_after(mark: str) -> None:
    page = f"<p>12... Nc6</p>{mark}<p>12. Nf3</p><div>Your move.</div>"
    text = html_to_text(page)
    assert text.unquoted == "12... Nc6"
    assert "12. Nf3" in text.full


def test_html_outlook_mark_inside_a_quote_does_not_cut_a_reply_below() -> None:
    page = (
        '<blockquote type="cite">old<div id="divRplyFwdMsg">From: Bot</div>12. Nf3</blockquote>'
        "<div>12... Nc6</div>"
    )
    assert html_to_text(page).unquoted == "12... Nc6"


def test_html_full_text_marks_quotes() -> None:
    page = "<p>12... Nc6</p><blockquote>12. Nf3<blockquote>11... a6</blockquote></blockquote>"
    assert html_to_text(page).full == "12... Nc6\n> 12. Nf3\n>> 11... a6"


def test_gmail_indent_is_the_writers_own_text() -> None:
    indent = '<blockquote style="margin:0 0 0 40px;border:none;padding:0px">'
    page = f"<div>Hi,</div>{indent}12... Nc6</blockquote>"
    assert html_to_text(page).unquoted == "Hi,\n12... Nc6"


def test_html_pre_keeps_lines() -> None:
    assert html_to_text("<pre>12... Nc6\n  draw?</pre>").unquoted == "12... Nc6\ndraw?"


@pytest.mark.parametrize(
    "page", ["<![foo bar <p>12... Nc6", "<p>12... Nc6</p><![if x", "<div><p>12... Nc6</span></b>"]
)
def test_broken_html_never_raises(page: str) -> None:
    text = html_to_text(page)
    assert "12... Nc6" in text.unquoted


def test_unclosed_tags_do_not_swallow_text() -> None:
    page = "<html><head><title>x</title><body><p>12... Nc6<p>draw<div><b>bold"
    assert html_to_text(page).unquoted == "12... Nc6\ndraw\nbold"


# ---------------------------------------------------------------------------
# New text: quotes, attributions, signatures


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, Mar 2, 2026 at 10:15 AM Chess Federation <chess@example.net> wrote:",
        "On Mon, Mar 2, 2026 at 10:15 AM Chess Federation <\nchess@example.net> wrote:",
        "On Mon, Mar 2, 2026 at 10:15 AM Chess Federation <chess@example.net>\nwrote:",
        "Chess Federation wrote:",
        "На пн, 2.03.2026 г. в 10:15 Шахматна федерация <chess@example.net> написа:",
        "На 2.03.26 г. в 10:15, Шахматна федерация написа:",
        "Шахматная федерация пишет:",
        "3 марта 2026 г., в 9:10, Шахматная федерация <chess@example.net> написал(а):",
        "Иван Иванов писал(а):",
        "пн, 2 мар. 2026 г. в 10:15, Шахматная федерация <chess@example.net>:",
        '02.03.2026, 10:15, "Шахматная федерация" <chess@example.net>:',
        "Понедельник, 2 марта 2026, 10:15 +03:00 от Федерация <chess@example.net>:",
        "* Chess Federation <chess@example.net> [2026-03-02 10:15 +0200]:",
        "Am 02.03.2026 um 10:15 schrieb Chess Federation:",
        "Le 2 mars 2026 à 10:15, Chess Federation a écrit :",
    ],
)
def test_top_posting_drops_attribution_and_quote(attribution: str) -> None:
    text = f"Hi,\n\n12... Nc6\n\n{attribution}\n> 12. Nf3\n>\n> Your move.\n"
    assert new_text(text) == "Hi,\n\n12... Nc6"


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, Mar 2, 2026 at 10:15 AM Chess Federation <chess@example.net> wrote:",
        "На пн, 2 март 2026 г. в 10:15 Шахматна федерация <\nchess@example.net> написа:",
        "Шахматная федерация пишет:",
        "* Chess Federation <chess@example.net> [2026-03-02 10:15 +0200]:",
    ],
)
def test_bottom_posting_keeps_the_text_below_the_quote(attribution: str) -> None:
    text = f"{attribution}\n\n> 12. Nf3\n> Your move.\n\n12... Nc6\n\nIvan\n"
    assert new_text(text) == "12... Nc6\n\nIvan"


def test_interleaved_reply_keeps_every_unquoted_line() -> None:
    text = (
        "Hi,\n\nOn Mon, Bot wrote:\n> 17... Rf8-e8\n\n18. Ra1-d1\n\n"
        "> I offer a draw.\n\nDeclined.\n-- \nJohn\n"
    )
    assert new_text(text) == "Hi,\n\n18. Ra1-d1\n\nDeclined."


def test_quotes_without_attribution_are_dropped_anywhere() -> None:
    assert new_text("> 12. Nf3\n12... Nc6\n  > 11... a6\nok") == "12... Nc6\nok"


def test_attribution_followed_by_an_unquoted_original_ends_the_new_text() -> None:
    text = "12... Nc6\n\nOn Mon, Bot wrote:\n\n12. Nf3; 27.2. - 28.2.\nYour move.\n"
    assert new_text(text) == "12... Nc6"
    assert new_text("On Mon, Bot wrote:\n12. Nf3\n") == ""


def test_a_move_line_before_an_attribution_is_not_taken_for_it() -> None:
    text = "12... Nc6\nOn Mon, Bot <\nbot@example.net> wrote:\n> 12. Nf3"
    assert new_text(text) == "12... Nc6"


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----",
        "----- Original Message -----",
        "-----Оригинално съобщение-----",
        "-------- Оригинално писмо --------",
        "-----Исходное сообщение-----",
        "-------- Пересылаемое сообщение --------",
        "---------- Forwarded message ---------",
        "-------- Forwarded Message --------",
        "---------- Препратено съобщение ---------",
        "-----Ursprüngliche Nachricht-----",
        "Begin forwarded message:",
        "________________________________",
    ],
)
def test_separators_end_the_new_text(separator: str) -> None:
    text = f"12... Nc6\n\n{separator}\nFrom: Bot\n\n12. Nf3\n"
    assert new_text(text) == "12... Nc6"


@pytest.mark.parametrize(
    "block",
    [
        "From: Chess Federation [mailto:chess@example.net]\nSent: Monday, March 2, 2026\n"
        "To: Ivan\nSubject: [BG-2026-E1/7] move",
        "От: Шахматна федерация <chess@example.net>\nИзпратено: понеделник, 2 март 2026 г.\n"
        "До: Иван\nОтносно: [BG-2026-E1/7] ход",
        "От: Шахматная федерация <chess@example.net>\nОтправлено: 2 марта 2026 г. 10:15\n"
        "Кому: Иван\nТема: [RU-2026-C2/4] ход",
        "От: Шахматная федерация <chess@example.net>\nДата: понедельник, 2 марта 2026 г.\n"
        "Кому: Иван\nТема: ход",
        "*From:* Chess Federation\n*Sent:* Monday\n*To:* Ivan",
    ],
)
def test_outlook_header_blocks_end_the_new_text(block: str) -> None:
    assert new_text(f"12... Nc6\n\n{block}\n\n12. Nf3\n") == "12... Nc6"


@pytest.mark.parametrize(
    "text",
    [
        "From: Ivan, with love\n12... Nc6",
        "leave\nFrom: 1.6.2026\nTo: 30.6.2026\n12... Nc6",
        "Отпуск\nОт: 1.6.2026\nДо: 30.6.2026",
    ],
)
def test_from_and_to_lines_of_a_player_are_not_a_header_block(text: str) -> None:
    assert new_text(text) == text


@pytest.mark.parametrize(
    "signature",
    [
        "-- \nIvan Ivanov\nNf3 chess club",
        "--\nIvan Ivanov\ne4 forever",
        "--\xa0\nIvan",
        "Sent from my iPhone\n\n> On 2 Mar, Bot wrote:\n> 12. Nf3",
        "Sent from my Galaxy",
        "Get Outlook for Android",
        "Изпратено от моя iPhone",
        "Отправлено с iPhone",
        "Отправлено из мобильной Почты",
    ],
)
def test_signatures_end_the_new_text(signature: str) -> None:
    assert new_text(f"12... Nc6\n\n{signature}\n") == "12... Nc6"


def test_lines_that_only_look_like_signatures_are_kept() -> None:
    text = "Sent from the hospital, sorry for the delay.\n12... Nc6\n---\ndraw?"
    assert new_text(text) == text


def test_new_text_of_nothing_is_empty() -> None:
    assert new_text("") == ""
    assert new_text("\n\n> only a quote\n\n") == ""


# ---------------------------------------------------------------------------
# Never raises


def test_garbage_gives_an_empty_garbled_letter() -> None:
    for raw in (b"", b"\x00\xff\xfe\x80", b"\r\n\r\n\r\n", b"no headers at all"):
        letter = read_letter(raw)
        assert letter.body == ""
        assert letter.garbled
        assert letter.raw_sha256 == hashlib.sha256(raw).hexdigest()


def test_letters_are_frozen_and_hashable() -> None:
    letter = read_letter((CORPUS / "01-gmail-en-top-posting.eml").read_bytes())
    assert letter == read_letter((CORPUS / "01-gmail-en-top-posting.eml").read_bytes())
    assert hash(letter) == hash(dataclasses.replace(letter))
    with pytest.raises(dataclasses.FrozenInstanceError):
        letter.body = "x"  # type: ignore[misc]


def check_letter(letter: Letter) -> None:
    """Whatever came in, the letter holds clean text the rest of the bot can store."""
    for value in (
        letter.body,
        letter.full_text,
        letter.subject,
        letter.subject_core,
        letter.from_addr,
        letter.from_name,
        *letter.to_addrs,
        *letter.references,
        *letter.in_reply_to,
        *letter.authentication_results,
        *letter.headers.values(),
    ):
        assert isinstance(value, str)
        value.encode("utf-8")
    assert letter.from_addr == letter.from_addr.lower()
    assert letter.message_id is None or letter.message_id.encode("utf-8")
    assert len(letter.raw_sha256) == 64


CORPUS_FILES = sorted(CORPUS.glob("*.eml"))
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(st.binary(max_size=3000))
def test_random_bytes_never_raise(raw: bytes) -> None:
    check_letter(read_letter(raw))


@FAST
@given(
    st.sampled_from(CORPUS_FILES),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 40), st.binary(max_size=12)), max_size=6),
    st.floats(0.05, 1),
)
@pytest.mark.slow
def test_mutated_real_messages_never_raise(
    path: pathlib.Path, edits: list[tuple[float, int, bytes]], keep: float
) -> None:
    raw = bytearray(path.read_bytes())
    for where, cut, insert in edits:
        at = int(where * len(raw))
        raw[at : at + cut] = insert
    check_letter(read_letter(bytes(raw[: max(1, int(keep * len(raw)))])))


@FAST
@given(
    st.lists(
        st.sampled_from(
            [*"<>/=\"' -:;abdhiqtvpr&#x\n", "<div", "<blockquote", "</", "<![", "&#1050;", "id="]
        ),
        max_size=200,
    ).map("".join)
)
@pytest.mark.slow
def test_html_fragments_never_raise(markup: str) -> None:
    text = html_to_text(markup)
    assert isinstance(text.unquoted, str)
    raw = mail("From: a@example.org\nContent-Type: text/html; charset=utf-8", markup)
    check_letter(read_letter(raw))


@FAST
@given(st.text(max_size=400))
@pytest.mark.slow
def test_new_text_only_removes_lines(text: str) -> None:
    kept = new_text(text).split("\n")
    text = text.replace("\r", "\n").lstrip("\ufeff")
    lines = [line.replace("\xa0", " ").rstrip() for line in text.split("\n")]
    position = 0
    for line in kept:
        if line:
            position = lines.index(line, position) + 1
