"""run_isolated: asyncio.run without reading the process-wide task set (which other threads' loops change)."""

from __future__ import annotations

import asyncio

import pytest

from sitemapkit.core._loops import run_isolated


def test_returns_the_result_and_cancels_what_is_left_without_all_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    def all_tasks(loop: asyncio.AbstractEventLoop | None = None) -> set[asyncio.Task[object]]:
        raise RuntimeError("Set changed size during iteration")

    monkeypatch.setattr(asyncio.tasks, "all_tasks", all_tasks)
    cancelled: list[str] = []

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append("left over")
            raise

    async def main() -> int:
        asyncio.get_running_loop().create_task(forever())
        await asyncio.sleep(0)
        return 42

    assert run_isolated(main()) == 42
    assert cancelled == ["left over"]

    async def quick() -> int:
        return 1

    with pytest.raises(RuntimeError, match="Set changed size"):
        asyncio.run(quick())  # what the web app's crawl threads did


def test_exceptions_propagate_and_the_loop_is_closed() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def boom() -> None:
        loops.append(asyncio.get_running_loop())
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        run_isolated(boom())
    assert loops[0].is_closed()
