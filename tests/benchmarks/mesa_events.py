"""Mesa's own event scheduling alone, on the reference loop's schedule: a floor of ``make bench``.

A Mesa model in the style of Mesa's ``mmc_queue`` example that plans nothing: one agent replays
the jobs of tests/benchmarks/easy_loop.py with one ``schedule_event`` per arrival (each arrival
schedules the next) and one per completion (at the end the loop's EASY gives the job), and
``run_until`` runs them, the time in hours as the market's. Any model that handles each arrival
and each completion as a Mesa event, as Mesa means events to be used, costs at least this before
it decides anything. Prints, as JSON, the CPU seconds of building and running the model (not of
importing Mesa or reading the trace) and the number of events run.

    python tests/benchmarks/mesa_events.py TRACE [--processors N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import mesa

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.benchmarks.easy_loop import easy, read_jobs


class Replay(mesa.Agent):
    """Submits each job at its arrival and counts it done at its end."""

    def __init__(self, model: EventsAlone, arrivals: list[float], ends: list[float]) -> None:
        super().__init__(model)
        self.arrivals, self.ends = arrivals, ends
        self.arrived = self.completed = 0

    def arrive(self) -> None:
        k = self.arrived
        self.arrived += 1
        self.model.schedule_event(self.complete, at=self.ends[k])
        if self.arrived < len(self.arrivals):
            self.model.schedule_event(self.arrive, at=self.arrivals[self.arrived])

    def complete(self) -> None:
        self.completed += 1


class EventsAlone(mesa.Model):
    """The jobs' arrivals and completions as Mesa events, and nothing else."""

    def __init__(self, arrivals: list[float], ends: list[float], rng: int = 1) -> None:
        super().__init__(rng=rng)
        self.replay = Replay(self, arrivals, ends)
        if arrivals:
            self.schedule_event(self.replay.arrive, at=arrivals[0])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--processors", type=int)
    args = parser.parse_args(argv)
    capacity, arrival, procs, runtime, estimate = read_jobs(args.trace, None, args.processors)
    starts = easy(arrival, procs, runtime, estimate, capacity)
    arrivals = [a / 3600.0 for a in arrival]
    ends = [(s + r) / 3600.0 for s, r in zip(starts, runtime, strict=True)]
    begin = time.process_time()
    model = EventsAlone(arrivals, ends)
    model.run_until(max(ends, default=0.0) + 1.0)
    spent = time.process_time() - begin
    done = model.replay.arrived + model.replay.completed
    print(json.dumps({"events_cpu_s": spent, "events": done, "jobs": len(arrivals)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
