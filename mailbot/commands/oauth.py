"""The ``oauth authorize`` command: the first OAuth2 refresh token of an account."""

from __future__ import annotations

import argparse
import logging

from mailbot.commands.command import (
    CommandContext,
    Commands,
    UsageError,
    described,
)

log = logging.getLogger("mailbot")

COMMANDS = Commands()


def _oauth_arguments(parser: argparse.ArgumentParser) -> None:
    described(
        parser,
        "Obtains the first OAuth2 refresh token of the account (imap or smtp) whose\n"
        "`auth` is oauth2, as the provider lets an installed application, and writes the\n"
        "account's oauth2.token_file (mode 0600). The token is never printed or logged.\n\n"
        "  google     authorization code with PKCE: open the printed address in a browser on\n"
        "             this machine; the provider sends the browser back to a listener on\n"
        "             127.0.0.1 (a free port) that this command runs until it is done\n"
        "  microsoft  device code: open the printed address anywhere, enter the code\n"
        "  generic    device code if oauth2.device_url is set, else code with PKCE\n"
        "             (oauth2.authorize_url); --device or --browser chooses\n\n"
        "A daemon that waits for a new token takes it without a restart.\n\n"
        "examples:\n"
        "  mailbot -c /etc/mailbot/config.yaml oauth authorize imap\n"
        "  mailbot -c /etc/mailbot/config.yaml oauth authorize smtp --device",
    )
    parser.add_argument("account", choices=("imap", "smtp"), help="the account to authorize")
    flow = parser.add_mutually_exclusive_group()
    flow.add_argument(
        "--device", dest="device", action="store_const", const=True, help="use the device code"
    )
    flow.add_argument(
        "--browser",
        dest="device",
        action="store_const",
        const=False,
        help="use the authorization code with PKCE and a loopback redirect",
    )
    parser.add_argument(
        "--wait",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait for the browser's redirect (default 300)",
    )


@COMMANDS.command(
    "oauth",
    "authorize",
    help="obtain the first OAuth2 refresh token of the imap or smtp account and write its "
    "token file",
    arguments=_oauth_arguments,
)
def oauth_authorize(ctx: CommandContext, args: argparse.Namespace) -> int:
    from mailbot.mail import oauth

    account = ctx.settings.imap if args.account == "imap" else ctx.settings.smtp
    settings = account.oauth2
    if settings is None:
        raise UsageError(
            f"{args.account}.auth is not oauth2 in {ctx.config_path}: nothing to authorize"
        )
    try:
        flow = oauth.authorize(
            settings,
            lambda line: print(line, file=ctx.stdout, flush=True),
            device=args.device,
            wait=args.wait,
        )
    except oauth.AuthorizeError as exc:
        raise UsageError(f"oauth authorize {args.account}: {exc}") from None
    print(
        f"{args.account}: token file {settings.token_file} written ({flow.value} flow); "
        f"the bot logs in as {account.username}",
        file=ctx.stdout,
    )
    return 0
