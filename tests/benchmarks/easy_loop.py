"""The minimal reference loop the replay's speed is measured against: EASY backfilling of an SWF
trace in plain Python on whole seconds (no numpy, no Mesa, no objects per job), with the same
record selection as the market's trace workload (its defaults: no partial executions, no
unknown or zero run time, allocated processors else requested, none wider than the machine) and
user estimates (the requested time, raised to the run time where missing or shorter).

The schedule is EASY as :class:`agents.policies.backfill.EASY` and the test oracle
(tests/easy_oracle.py) define it: start from the head while jobs fit; the head's reservation at
the shadow time; every other waiting job, in queue order, starts now if it fits and ends (by its
estimate) by the shadow time or uses no more than the processors left over then. So
``gridmarket``'s ``easy`` + ``accept_all`` replay gives every job the same start, and the same
utilization (arrival phase) and mean wait, which the script prints.

    python tests/benchmarks/easy_loop.py TRACE [--first N] [--processors N]
"""

from __future__ import annotations

import gzip
import heapq
import sys
import time
from bisect import bisect_left, insort

INF = float("inf")


def read_jobs(path: str, first: int | None = None, processors: int | None = None):
    """``(capacity, arrival, procs, runtime, estimate)``: lists of whole seconds in submit order,
    arrivals from the first selected submission."""
    opener = gzip.open if path.endswith(".gz") else open
    rows, capacity = [], processors
    with opener(path, "rt", encoding="latin-1") as lines:
        for line in lines:
            if line.startswith(";"):
                if capacity is None and line[1:].strip().startswith("MaxProcs:"):
                    capacity = int(line.split(":", 1)[1])
                continue
            f = line.split()
            if len(f) < 11:
                continue
            submit, runtime = float(f[1]), float(f[3])
            procs = float(f[4]) if float(f[4]) >= 1 else float(f[7])
            status = f[10]
            if status in ("2", "3", "4") or submit < 0 or runtime <= 0 or procs < 1:
                continue
            if capacity is not None and procs > capacity:
                continue
            request = float(f[8])
            rows.append((submit, int(procs), runtime, request if request > runtime else runtime))
    rows.sort(key=lambda row: row[0])  # stable: ties keep file order
    rows = rows[:first] if first else rows
    origin = rows[0][0] if rows else 0.0
    arrival = [round(r[0] - origin) for r in rows]
    return (
        capacity,
        arrival,
        [r[1] for r in rows],
        [round(r[2]) for r in rows],
        [round(r[3]) for r in rows],
    )


def easy(arrival, procs, runtime, estimate, capacity):
    """Start times (seconds) of the jobs under EASY backfilling on ``capacity`` processors."""
    n = len(arrival)
    start = [0] * n
    planned_end = [0] * n
    queue = []  # waiting jobs, in arrival order
    completions = []  # heap of (actual end, job)
    running = []  # (estimated end, job), sorted
    free, nxt = capacity, 0
    while nxt < n or queue:
        t_arrival = arrival[nxt] if nxt < n else INF
        now = completions[0][0] if completions and completions[0][0] < t_arrival else t_arrival
        while completions and completions[0][0] <= now:
            k = heapq.heappop(completions)[1]
            free += procs[k]
            del running[bisect_left(running, (planned_end[k], k))]
        while nxt < n and arrival[nxt] <= now:
            queue.append(nxt)
            nxt += 1
        head = 0  # 1. start from the head while jobs fit
        while head < len(queue) and procs[queue[head]] <= free:
            k = queue[head]
            free -= procs[k]
            start[k], planned_end[k] = now, now + estimate[k]
            insort(running, (planned_end[k], k))
            heapq.heappush(completions, (now + runtime[k], k))
            head += 1
        if head:
            del queue[:head]
        if len(queue) < 2 or free == 0:
            continue
        need, avail, shadow, counted = procs[queue[0]], free, INF, 0  # 2. the head's reservation
        for end, k in running:  # overdue ones count as ending now
            counted += 1
            avail += procs[k]
            if avail >= need:
                shadow = end if end > now else now
                break
        for end, k in running[counted:]:
            if end > shadow:
                break
            avail += procs[k]
        extra = avail - need
        waiting = [queue[0]]  # 3. backfill, in queue order
        for k in queue[1:]:
            p = procs[k]
            if free and p <= free and (now + estimate[k] <= shadow or p <= extra):
                if now + estimate[k] > shadow:
                    extra -= p
                free -= p
                start[k], planned_end[k] = now, now + estimate[k]
                insort(running, (planned_end[k], k))
                heapq.heappush(completions, (now + runtime[k], k))
            else:
                waiting.append(k)
        queue = waiting
    return start


def measures(capacity, arrival, procs, runtime, start):
    """``(utilization %, mean wait s)``: processor-seconds held between the first and the last
    arrival over those the pool had (the market's ``utilization``), and the mean of start minus
    arrival."""
    lo, hi = arrival[0], arrival[-1]
    held = 0
    for s, r, p in zip(start, runtime, procs, strict=True):
        a, b = max(s, lo), min(s + r, hi)
        if b > a:
            held += p * (b - a)
    wait = sum(start) - sum(arrival)
    return 100.0 * held / (capacity * (hi - lo)), wait / len(start)


def main(argv: list[str]) -> int:
    path, first, processors = argv[0], None, None
    if "--first" in argv:
        first = int(argv[argv.index("--first") + 1])
    if "--processors" in argv:
        processors = int(argv[argv.index("--processors") + 1])
    cpu = time.process_time()
    capacity, arrival, procs, runtime, estimate = read_jobs(path, first, processors)
    read = time.process_time()
    start = easy(arrival, procs, runtime, estimate, capacity)
    done = time.process_time()
    utilization, wait = measures(capacity, arrival, procs, runtime, start)
    print(f"jobs {len(start)}")
    print(f"utilization {utilization!r}")
    print(f"mean_wait_s {wait!r}")
    print(f"read_cpu_s {read - cpu:.4f}")
    print(f"schedule_cpu_s {done - read:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
