"""Mail: reading and writing messages and their transports.

What a raw message says (letters, from its charsets, headers, MIME structure,
quoting, HTML text and machine-mail marks, kept storable), whom it comes from
(trust, addresses), what it asks (intent), the wire form of a mail to send
(wire), the mailbox over IMAP (inbox), SMTP (postman), OAuth2 logins (oauth,
settings), delivery reports (bounces) and the directors' reply addresses
(orderkeys). It imports only :mod:`mailbot.rules`; it never touches the store.
"""
