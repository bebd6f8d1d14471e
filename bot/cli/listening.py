"""The local services' default ports, and the one sentence a command says when its address is taken."""

from __future__ import annotations

import errno

# Distinct defaults, so a club's bot ([web] port 8081), the demo's pages (`demo --serve 8080`, the README's
# example), the local Lichess and the local Discord all run at once on one machine.
LICHESS_SANDBOX_PORT = 8090
DISCORD_SANDBOX_PORT = 8091

LISTEN_ERRNOS = frozenset({errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES})


def is_listen_error(error: OSError) -> bool:
    """True when the error is a listening socket refused its address (in use, not ours, a privileged port)."""
    return error.errno in LISTEN_ERRNOS


def cannot_listen(command: str, host: str, port: int, error: OSError, change: str) -> str:
    """One sentence: which address, why, and the option or key (`change`) that picks another."""
    if error.errno == errno.EADDRINUSE:
        why = "is already in use (another program, or another swissbot, listens there)"
    elif error.errno == errno.EACCES:
        why = "may not be used (a port below 1024 needs privileges)"
    else:
        why = f"cannot be listened on ({error.strerror or error})"
    return f"swissbot {command}: {host}:{port} {why}; {change}"
