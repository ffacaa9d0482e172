"""Xfcc, the web service of correspondence chess programs (docs/contract.md,
"Players' chess programs"): SOAP 1.1 ``XfccBasic`` with ``GetMyGames`` and
``MakeAMove``, served by the daemon on ``xfcc.listen``.

:mod:`~mailbot.xfcc.soap` is pure (the requests read, the replies written, the
WSDL); :mod:`~mailbot.xfcc.games` reads a player's games from the store,
:mod:`~mailbot.xfcc.moves` hands a move to the desk as a message received at
the request's time, and :mod:`~mailbot.xfcc.server` is the HTTP listener. Like
the other entry points it may import every layer.
"""
