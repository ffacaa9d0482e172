"""Whom a message comes from: the From field, the receiving server's verdict, addresses."""

from __future__ import annotations

import pytest

from mailbot.mail.addresses import AddressError, check_address, normal_address, smtp_address
from mailbot.mail.trust import Dmarc, dmarc_verdict, read_results, sender_problem

MX = "mx.fed.example"


@pytest.mark.parametrize(
    ("headers", "verdict"),
    [
        ([f"{MX}; dmarc=pass header.from=fed.example"], Dmarc.PASS),
        ([f"{MX} 1; dmarc=pass (p=reject dis=none) header.from=Fed.Example"], Dmarc.PASS),
        ([f"{MX};\r\n\tdmarc=fail header.from=fed.example"], Dmarc.FAIL),
        # only the topmost header of the trusted server counts
        ([f"{MX}; spf=pass", f"{MX}; dmarc=pass header.from=fed.example"], Dmarc.NONE),
        (["mx.other; dmarc=pass header.from=fed.example"], Dmarc.NONE),
        # the verdict must be the dmarc method's, for the From's domain
        ([f"{MX}; spf=pass smtp.mailfrom=dmarc=pass@evil.example"], Dmarc.NONE),
        ([f"{MX}; dkim=pass (dmarc=pass header.from=fed.example)"], Dmarc.NONE),
        ([f"{MX}; dmarc=pass header.from=evil.example"], Dmarc.NONE),
        ([f"{MX}; dmarc=pass"], Dmarc.NONE),
        # a quoted local part with escaped quotes hides nothing
        (
            [
                f'{MX}; spf=pass smtp.mailfrom="x\\";dmarc=pass header.from=fed.example;'
                f'm=r\\"\\""@evil.example; dmarc=fail header.from=fed.example'
            ],
            Dmarc.FAIL,
        ),
        # a verdict far down a long header is still read
        (
            [f"{MX}; " + "dkim=pass header.d=x; " * 500 + "dmarc=fail header.from=fed.example"],
            Dmarc.FAIL,
        ),
    ],
)
def test_dmarc_verdicts(headers: list[str], verdict: Dmarc) -> None:
    assert dmarc_verdict(headers, MX, "fed.example") is verdict


def test_results_are_read_with_comments_and_versions() -> None:
    server, results = read_results(f"{MX} 1 (comment; with=dmarc=pass); dmarc/1=pass")
    assert server == MX
    assert [(r.method, r.result) for r in results] == [("dmarc", "pass")]


@pytest.mark.parametrize(
    ("senders", "fields", "problem"),
    [
        ([("Ivan", "ivan@x.org")], 1, None),
        ([("ivan@x.org", "ivan@x.org")], 1, None),
        ([("Иванов, Иван", "ivan@x.org")], 1, None),
        ([("", "td@fed.example"), ("", "eve@evil.example")], 1, "several addresses"),
        ([("td@fed.example", "eve@evil.example")], 1, "another address"),
        ([("Ivan", "ivan@x.org")], 2, "several From fields"),
        ([("undisclosed-recipients", "")], 1, "no sender address"),
        ([], 0, "no sender address"),
    ],
)
def test_sender_problems(senders: list[tuple[str, str]], fields: int, problem: str | None) -> None:
    found = sender_problem(senders, fields)
    assert (found is None) if problem is None else (problem in (found or ""))


def test_addresses_have_one_normal_form() -> None:
    assert normal_address("Ivan@XN--E1AFMKFD.XN--90AE") == "ivan@пример.бг"
    assert normal_address("<Ivan@Пример.БГ>") == "ivan@пример.бг"
    assert normal_address("a@xn--ib9b.com") == "a@xn--ib9b.com"  # no text behind it
    assert smtp_address("ivan@пример.бг", smtputf8=False) == "ivan@xn--e1afmkfd.xn--90ae"
    with pytest.raises(AddressError):
        smtp_address("иван@пример.бг", smtputf8=False)
    assert check_address("ivan@lan.internal", special_use=True) == "ivan@lan.internal"
    assert check_address("ivan@localhost", special_use=True) == "ivan@localhost"
    with pytest.raises(AddressError, match="special_use_domains"):
        check_address("ivan@club.test")
