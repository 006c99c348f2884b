"""Ctrl-C in tests that start a real process: the child gets the default SIGINT handling whatever the suite got.

A suite started in the background (``pytest &``, some CI runners) inherits SIGINT *ignored*, and so does every
process it starts: Python then installs no KeyboardInterrupt handler and a test's ``send_signal(SIGINT)`` does
nothing. Start such a child with ``preexec_fn=sigint_default``: SIGINT is reset to the default before the child's
program runs, so Python installs its own handler as it does in a terminal.
"""

from __future__ import annotations

import signal

__all__ = ["sigint_default"]


def sigint_default() -> None:
    """For ``subprocess.Popen(..., preexec_fn=sigint_default)``: SIGINT back to its default in the child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
