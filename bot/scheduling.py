"""Runs the director's jobs on time with APScheduler; the jobs are derived from the database, never kept.

`rebuild()` asks the director for `due_jobs(now)` and makes APScheduler hold exactly those (deterministic
ids, so rebuilding replaces rather than duplicates). Event times become wall times through the clock, so
a `FastClock` (the demo) runs the same schedule faster. Jobs run one at a time; after each, and after
every state change the director reports, the jobs are rebuilt. A job missed while the bot was down is
still due at start-up, so it runs at once if it still means something (the director decides).
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.clock import Clock
from bot.director.api import Director
from bot.director.models import Job, JobKind

LOG = logging.getLogger(__name__)
MAX_WALL_DELAY = 24 * 3600.0


class Scheduler:
    """The director's jobs on an `AsyncIOScheduler` (or run by hand with `run_due`, for manual clocks)."""

    def __init__(self, director: Director, clock: Clock, *, poll_interval: float | None = None) -> None:
        self.director = director
        self.clock = clock
        self.poll_interval = poll_interval if poll_interval is not None else director.settings.poll_interval
        self._aps: AsyncIOScheduler | None = None
        self._run_lock = asyncio.Lock()
        self._rebuild_lock = asyncio.Lock()
        self._rebuild_task: asyncio.Task[None] | None = None
        self._rebuild_again = False
        self._failures: dict[str, int] = {}
        self._retry_at: dict[str, datetime] = {}
        self._running: set[asyncio.Task[object]] = set()
        self.errors: list[tuple[str, BaseException]] = []
        director.add_listener(self.request_rebuild)  # a no-op until `start` (and after `shutdown`)

    # -- with APScheduler ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Start APScheduler and build the jobs from the database."""
        self._aps = AsyncIOScheduler(timezone=UTC)
        self._aps.start()
        await self.rebuild()

    async def shutdown(self, grace: float = 60.0) -> None:
        """Stop the scheduler: no job starts any more, and the running ones finish (cancelled after `grace` s)."""
        aps, self._aps = self._aps, None
        if aps is not None:
            aps.pause()
        if self._rebuild_task is not None:
            self._rebuild_task.cancel()
            with suppress(asyncio.CancelledError):
                await self._rebuild_task
            self._rebuild_task = None
        # APScheduler's asyncio executor cancels the jobs still running when it shuts down; a job still
        # posting the final standings would die with a traceback. So wait for them first.
        running = [task for task in self._running if task is not asyncio.current_task()]
        if running:
            _, late = await asyncio.wait(running, timeout=grace)
            if late:
                LOG.warning("%d job(s) still running %.0f s after the shutdown began; cancelled", len(late), grace)
        if aps is not None:
            aps.shutdown(wait=False)
        await asyncio.gather(*running, return_exceptions=True)

    def request_rebuild(self) -> None:
        """Rebuild soon (called by the director after a state change)."""
        if self._aps is None:
            return
        if self._rebuild_task is not None and not self._rebuild_task.done():
            self._rebuild_again = True
            return
        self._rebuild_task = asyncio.get_running_loop().create_task(self._rebuild_soon())

    async def _rebuild_soon(self) -> None:
        while True:
            self._rebuild_again = False
            await self.rebuild()
            if not self._rebuild_again:
                return

    def wall_delay(self, due: datetime) -> float:
        """Wall seconds from now until a job due at `due` is run (at most MAX_WALL_DELAY: a long wait is re-planned)."""
        return min(self.clock.wall_seconds(due), MAX_WALL_DELAY)

    def _wall_time(self, due: datetime) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=self.wall_delay(due))

    async def rebuild(self) -> None:
        """Make APScheduler hold exactly the jobs the database implies."""
        aps = self._aps
        if aps is None:
            return
        async with self._rebuild_lock:
            try:
                jobs = await self.director.due_jobs(self.clock.now())
            except Exception as exc:  # a broken database must not kill the loop; try again shortly
                LOG.exception("could not derive the jobs")
                self.errors.append(("rebuild", exc))
                jobs = []
            wanted = {job.id: job for job in jobs}
            for existing in aps.get_jobs():
                if existing.id not in wanted:
                    existing.remove()
            for job in jobs:
                existing = aps.get_job(job.id)
                if job.kind is JobKind.POLL:
                    if existing is None:
                        every = self.clock.wall_seconds(self.clock.now() + timedelta(seconds=self.poll_interval))
                        aps.add_job(
                            self._run,
                            "interval",
                            seconds=max(0.05, min(every, MAX_WALL_DELAY)),
                            next_run_time=datetime.now(UTC),
                            args=[job],
                            id=job.id,
                            max_instances=1,
                            coalesce=True,
                            misfire_grace_time=None,
                        )
                    continue
                run_at = self._wall_time(self.run_time(job))
                if existing is not None and existing.args and existing.args[0] == job:
                    continue
                aps.add_job(
                    self._run,
                    "date",
                    run_date=run_at,
                    args=[job],
                    id=job.id,
                    replace_existing=True,
                    max_instances=1,
                    misfire_grace_time=None,
                )

    async def _run(self, job: Job) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._running.add(task)
        try:
            await self.run_job(job)
            self.request_rebuild()
        finally:
            if task is not None:
                self._running.discard(task)

    def run_time(self, job: Job) -> datetime:
        """When a job runs (event time): when it is due, and after a failure not before `retry_after` has passed."""
        retry = self._retry_at.get(job.id)
        return job.due_at if retry is None else max(job.due_at, retry)

    async def run_job(self, job: Job) -> bool:
        """Run one job (one at a time); failures are logged and the job is tried again `retry_after` later."""
        async with self._run_lock:
            try:
                await self.director.run_job(job)
            except Exception as exc:
                count = self._failures.get(job.id, 0) + 1
                self._failures[job.id] = count
                # Without a pause, a job that fails at once (a read-only database) would be re-planned for
                # "now" by the rebuild after it and spin.
                self._retry_at[job.id] = self.clock.now() + timedelta(seconds=self.director.settings.retry_after)
                self.errors.append((job.id, exc))
                LOG.warning("job %s failed (%d): %s", job.id, count, exc, exc_info=count == 1)
                return False
            self._failures.pop(job.id, None)
            self._retry_at.pop(job.id, None)
            return True

    # -- by hand (tests with a ManualClock) -----------------------------------------------------------

    async def run_due(self) -> list[Job]:
        """Run every job due now, once each, in order; return them."""
        due = [job for job in await self.director.due_jobs(self.clock.now()) if job.due_at <= self.clock.now()]
        for job in due:
            await self.run_job(job)
        return due

    async def next_due(self) -> datetime | None:
        """When the next job (other than polling) is due."""
        jobs = [j for j in await self.director.due_jobs(self.clock.now()) if j.kind is not JobKind.POLL]
        return min((j.due_at for j in jobs), default=None)
