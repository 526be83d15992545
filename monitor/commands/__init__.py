"""CLI subcommands, one module each; every command module exposes ``register(app)``.

``choices`` is the one module that is no command: the choices and defaults the commands share.
"""
