"""What a player's or director's message asks, one small module per word.

The desk's route stage (:mod:`mailbot.desk.routes`) looks the message's
command words up in its one table and hands the message to the word's
handler; a message with none of them is about a move
(:func:`mailbot.desk.handlers.move.move`). A handler module imports no other
handler module: what two of them share is in ``steps``.

======================  ===========================================
module                  handles
======================  ===========================================
``answers``             help, status, strangers, unknown games, secrets, unreadable mail
``move``                a move: judged, played (with conditional lines) or refused
``steps``               judging, playing and refusing a move (shared by ``move`` and claims)
``draw``                draw offers: ``draw``, ``accept``, ``decline``
``resign``              ``resign``
``requests``            ``delay``, ``claim``, ``complaint``, ``leave``
``preferences``         ``digest on|off``: one daily mail instead of a mail per move
``orders``              the director's orders, held orders, others' orders
======================  ===========================================
"""
