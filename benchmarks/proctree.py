"""The processes below one process (a CLI run: its JVM and Python workers), read through
psutil: peak resident memory per kind and CPU seconds, sampled while it runs (benchmarks
only)."""

from __future__ import annotations

import threading

import psutil


def tree(root: int) -> list[int]:
    """``root`` and every process below it (none when ``root`` has ended)."""
    try:
        parent = psutil.Process(root)
        return [root, *(child.pid for child in parent.children(recursive=True))]
    except psutil.Error:
        return []


def sample(pid: int) -> tuple[str, int, float]:
    """(kind: ``jvm``/``python``/other name, resident KiB, CPU seconds so far) of one process."""
    try:
        process = psutil.Process(pid)
        with process.oneshot():
            name, rss, cpu = process.name(), process.memory_info().rss, process.cpu_times()
    except psutil.Error:
        return "", 0, 0.0
    kind = "jvm" if name == "java" else "python" if name.startswith("python") else name
    return kind, rss // 1024, cpu.user + cpu.system


class Watch:
    """Samples the tree below ``pid`` every ``every`` s until :meth:`stop`: ``peak_kib``
    per kind (summed over that kind's processes at each sample) and ``cpu_seconds`` (the
    last value seen of each process, summed: a process's last ``every`` s may be missed)."""

    def __init__(self, pid: int, every: float = 0.5):
        self.pid, self.every = pid, every
        self.peak_kib = {"jvm": 0, "python": 0}
        self._cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            sums = {"jvm": 0, "python": 0}
            for pid in tree(self.pid):
                kind, kib, cpu = sample(pid)
                if kind in sums:
                    sums[kind] += kib
                if kind:
                    self._cpu[pid] = cpu
            for kind, kib in sums.items():
                self.peak_kib[kind] = max(self.peak_kib[kind], kib)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def cpu_seconds(self) -> float:
        return sum(self._cpu.values())
