"""The processes below one process (a CLI run: its JVM and Python workers), read from /proc:
peak resident memory per kind and CPU seconds, sampled while it runs (benchmarks only)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def tree(root: int) -> list[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def sample(pid: int) -> tuple[str, int, float]:
    """(kind: ``jvm``/``python``/other name, resident KiB, CPU seconds so far) of one process."""
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK  # utime + stime
        rss = next(
            int(line.split()[1])
            for line in Path(f"/proc/{pid}/status").read_text().splitlines()
            if line.startswith("VmRSS:")
        )
    except (OSError, StopIteration):
        return "", 0, 0.0
    kind = "jvm" if name == "java" else "python" if name.startswith("python") else name
    return kind, rss, cpu


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
