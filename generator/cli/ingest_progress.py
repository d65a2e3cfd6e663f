"""What ``wirespec ingest`` shows while it runs and in its summary: the counts of files,
records and events, and the events/s rate over the decode time (:func:`rate`), as a rich bar
on a terminal or a plain line on stderr (:class:`Progress`), fed by a thread that watches
Spark's decode tasks (:func:`watch_tasks`)."""

from __future__ import annotations

import sys
import threading
import time

from generator.cli.common import counted

RATE_MIN_EVENTS = 1000
RATE_MIN_SECONDS = 1.0
"""An events/s rate is shown only over this many events and decode seconds at least: below,
it measures Spark's job start more than decoding, and rounds to 0 or runs away."""


def rate(events: int, seconds: float) -> str:
    """Events per second as the progress and the summary show it ("-": too few to say).

    >>> rate(250_000, 2.5), rate(4, 7.6), rate(5_000, 0.01)
    ('100,000', '-', '-')
    """
    if events < RATE_MIN_EVENTS or seconds < RATE_MIN_SECONDS:
        return "-"
    return f"{events / seconds:,.0f}"


class Progress:
    """Counts (files, records, events, events/s) while ingest runs: a rich bar on a
    terminal, else a plain line on stderr every ``every`` seconds and at each step."""

    def __init__(self, stream=None, every: float = 5.0):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.every = every
        self.state = {"step": "starting", "files": 0, "total": 0, "records": 0, "events": 0}
        self.decode_seconds = 0.0
        self._last = 0.0
        self._began = time.monotonic()
        self._bar = None
        self._lock = threading.Lock()

    def __enter__(self):
        if self.tty:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total} files"),
                TextColumn("{task.fields[counts]}"),
                TimeElapsedColumn(),
                console=Console(file=self.stream),
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("starting Spark", total=None, counts="")
        return self

    def __exit__(self, *exc):
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def start(self, files: int) -> None:
        """Count from zero for one format's ``files``."""
        self.decode_seconds = 0.0
        self.update(total=files, files=0, records=0, events=0)

    def decoded(self, seconds: float) -> None:
        """Count ``seconds`` of decoding: the events/s shown are over the decode time."""
        self.decode_seconds += seconds

    def update(self, force: bool = False, **changes) -> None:
        with self._lock:
            self.state.update(changes)
            s = self.state
            counts = f"{counted(s['records'], 'record')}, {counted(s['events'], 'event')}"
            per_second = rate(s["events"], self.decode_seconds)
            if per_second != "-":
                counts += f", {per_second} events/s"
            if self._bar is not None:
                self._bar.update(
                    self._task,
                    description=s["step"],
                    completed=s["files"],
                    total=s["total"] or None,
                    counts=counts,
                )
                return
            now = time.monotonic()
            if force or now - self._last >= self.every:
                self._last = now
                line = f"wirespec ingest: {now - self._began:6.1f}s {s['step']}"
                if s["total"]:  # not before the files are known (starting Spark)
                    line += f": {s['files']:,}/{counted(s['total'], 'file')}, {counts}"
                print(line, file=self.stream, flush=True)


def watch_tasks(spark, group: str, total: int, progress: Progress, stop: threading.Event):
    """Report the finished decode tasks (one per file) of the jobs of ``group`` until
    ``stop`` is set."""
    tracker = spark.sparkContext.statusTracker()
    while not stop.wait(0.5):
        done = 0
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            for stage in info.stageIds if info else ():
                s = tracker.getStageInfo(stage)
                if s and s.numTasks == total:
                    done = max(done, s.numCompletedTasks)
        progress.update(files=done)
