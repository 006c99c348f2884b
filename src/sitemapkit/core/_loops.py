"""Run a coroutine on an event loop of its own, in any thread, without iterating the process's set of tasks.

``asyncio.run`` ends by cancelling what is left through ``asyncio.all_tasks(loop)``, which copies the one
process-wide (weak) set of every task of every loop. While other threads' loops create tasks, the copy fails with
"Set changed size during iteration"; CPython retries 1000 times, then raises. The web app runs each crawl on a
thread with its own loop: with 45 crawls at once, 12 failed that way after their work was done. :func:`run_isolated`
keeps the set of this loop's tasks itself (a task factory) and cancels from that, so nothing reads the shared set.
Otherwise it does what ``asyncio.run`` does: a fresh loop, async generators and the default executor shut down,
the loop closed.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

__all__ = ["run_isolated"]

T = TypeVar("T")


def run_isolated(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on a new loop, safe with other event loops running in other threads."""
    loop = asyncio.new_event_loop()
    mine: set[asyncio.Task[Any]] = set()

    def factory(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any] | Generator[Any, None, Any],
                context: contextvars.Context | None = None) -> asyncio.Task[Any]:
        task: asyncio.Task[Any] = asyncio.Task(coro, loop=loop, context=context)
        mine.add(task)
        task.add_done_callback(mine.discard)
        return task

    loop.set_task_factory(factory)
    try:
        asyncio.set_event_loop(loop)
        return loop.run_until_complete(main)
    finally:
        try:
            _cancel(loop, mine)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()


def _cancel(loop: asyncio.AbstractEventLoop, tasks: set[asyncio.Task[Any]]) -> None:
    pending = [t for t in tasks if not t.done()]
    if not pending:
        return
    for task in pending:
        task.cancel()
    loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    for task in pending:
        if not task.cancelled() and task.exception() is not None:
            loop.call_exception_handler({"message": "unhandled exception during run_isolated() shutdown",
                                         "exception": task.exception(), "task": task})
