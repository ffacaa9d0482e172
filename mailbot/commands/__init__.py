"""The command line's commands, one module for what each group does.

An entry point like :mod:`mailbot.cli`: the commands may import every layer
of the bot, and nothing of the bot imports them but :mod:`mailbot.cli`.
"""
