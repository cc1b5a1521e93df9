"""`make bench` and `make bench-suite` write their figures into the benchmarks page, each between
its own markers, and leave the rest of the page as it is."""

from __future__ import annotations

import platform
import sys

from tests.benchmarks.compare import END, START, markdown, write_page


def block(text: str) -> str:
    return f"{START}\n{text}\n{END}\n"


def test_a_new_page_gets_a_title_and_the_block(tmp_path):
    page = tmp_path / "docs" / "benchmarks.md"
    write_page(page, block("| a | 1 |"))
    assert page.read_text() == f"# Benchmarks\n\n{START}\n| a | 1 |\n{END}\n"


def test_the_block_is_replaced_and_the_page_around_it_kept(tmp_path):
    page = tmp_path / "benchmarks.md"
    page.write_text(f"# B\n\nintro\n\n{START}\nold\n{END}\n\n## Sweeps\n\nby hand\n")
    write_page(page, block("new"))
    assert page.read_text() == f"# B\n\nintro\n\n{START}\nnew\n{END}\n\n## Sweeps\n\nby hand\n"
    write_page(page, block("newer"))  # again: still one block
    assert page.read_text().count(START) == 1 and "newer" in page.read_text()


def test_a_page_without_the_block_gets_it_at_the_end(tmp_path):
    page = tmp_path / "benchmarks.md"
    page.write_text("# B\n\nby hand\n")
    write_page(page, block("x"))
    assert page.read_text() == f"# B\n\nby hand\n\n{START}\nx\n{END}\n"


def test_a_table_remade_from_saved_figures_keeps_the_command_and_commit_that_measured_them():
    saved = {"load": [[1.0], [1.5]], "rounds": 3, "external_rounds": 3}
    measured = {**saved, "command": "compare.py --rounds 3", "commit": "abc1234 fast"}
    page = markdown(measured, [], "compare.py --load figures.json")
    assert "- command: `compare.py --rounds 3`\n- commit: abc1234 fast\n" in page
    assert "- table: `compare.py --load figures.json`" in page
    page = markdown(measured, [], "compare.py --rounds 3")  # (as measured: no second line)
    assert "- table:" not in page
    page = markdown(saved, [], "compare.py --load old.json")  # (saved without its command)
    assert "- command: `compare.py --load old.json`" in page and "- table:" not in page
    assert " cores, Python 3." in page and " on Python" not in page  # (no other tool's)


def test_the_page_names_the_python_each_other_simulator_ran_on():
    from tests.benchmarks.compare import python_version

    assert python_version(sys.executable) == platform.python_version()
    assert python_version("/no/such/python").startswith("unknown (")
    others = {"AccaSim": "3.11.7", "CQSim": "3.11.7"}
    figures = {"load": [[1.0], [1.5]], "rounds": 3, "external_rounds": 3, "interpreters": others}
    lines = markdown(figures, [], "c").splitlines()
    machine = next(line for line in lines if line.startswith("- machine:"))
    assert (
        f"Python {platform.python_version()}, AccaSim on Python 3.11.7, CQSim on Python 3.11.7;"
        in machine
    )


def test_the_suite_table_is_written_from_the_json_in_its_own_block_beside_make_bench(tmp_path):
    from tests.benchmarks import suite_table

    def bench(name: str, low: float, mid: float, extra=None) -> dict:
        fullname = f"tests/benchmarks/test_x.py::{name}"
        stats = {"rounds": 3, "min": low, "median": mid}
        return {"fullname": fullname, "name": name, "stats": stats, "extra_info": extra or {}}

    data = {
        "benchmarks": [
            bench("test_default_run_first_profit", 0.05, 0.0612),
            bench("test_easy_replay_of_sdsc_sp2_through_the_model", 2.5, 2.61, {"jobs_per_s": 2e4}),
        ]
    }
    page = tmp_path / "benchmarks.md"
    page.write_text(f"# B\n\n{START}\nbench\n{END}\n")
    (tmp_path / "b.json").write_text(__import__("json").dumps(data))
    suite_table.main([str(tmp_path / "b.json"), "--markdown", str(page)])
    suite_table.main([str(tmp_path / "b.json"), "--markdown", str(page)])  # replaced, not added
    text = page.read_text()
    assert text.startswith(f"# B\n\n{START}\nbench\n{END}\n") and text.count(suite_table.START) == 1
    assert (
        "| `test_x.py` test_default_run_first_profit | 3 | 50 ms | 61.2 ms |  | <= 0.3 s |" in text
    )
    assert "| 2.5 s | 2.61 s | jobs_per_s 2e+04 | >= 20,000 jobs/s, <= 1 GiB |" in text


def test_the_table_puts_each_floor_beside_the_figure_it_bounds():
    """Hand-made figures (CPU s, KiB): run() 6 s and the planner alone 3 s against a 1.5 s loop
    give 4x and 2x; the process 9 s against 6x, and the Mesa import as the process does it (1.2 s;
    all of Mesa, 2 s) 0.8x, with the planner 2.8x; the process's memory counts above all of
    Mesa."""
    from tests.benchmarks.bench_rows import rows

    def probe(cpu: float, rss: float = 100_000.0, out: str = "") -> dict:
        return {"cpu": cpu, "rss": rss, "out": out, "outs": [out]}

    inside = '{"utilization": 80.0, "mean_wait_s": 10.0, "run_cpu_s": 6.0, "planner_cpu_s": 3.0}'
    figures = {
        "loop": probe(1.5, out="utilization 80.0\nmean_wait_s 10.0\n"),
        "gm_inside": probe(8.0, out=inside),
        "gm_run": probe(9.0, rss=160_000.0),
        "mesa": probe(2.0, rss=150_000.0),
        "mesa_cli": probe(1.2, rss=120_000.0),
        "market": probe(2.2),
        "version": probe(0.1),
        "help": probe(0.1),
    }
    table = {row[0]: row[1:4] for row in rows(figures)}
    assert table["same schedule as the loop (utilization %, mean wait s)"][2] == "equal"
    assert table["SDSC-SP2 EASY: `GridMarket.run()` vs the loop's process"][2] == "4.00x"
    run_floor = next(v for k, v in table.items() if k.startswith("what bounds `run()`"))
    assert run_floor == ("3.00 s", "1.50 s", "2.00x")
    assert table["SDSC-SP2 EASY: whole `gridmarket run` process vs the loop's"][2] == "6.00x"
    process_floor = next(v for k, v in table.items() if k.startswith("what bounds the process"))
    assert process_floor == ("1.20 s", "1.50 s", "0.80x")  # Mesa as gridmarket imports it
    both = next(v for k, v in table.items() if k.startswith("what bounds the process with"))
    assert both == ("4.20 s", "1.50 s", "2.80x")  # that import, 1.2 s, and the planner, 3 s
    memory = next(v for k, v in table.items() if k.startswith("peak RSS above `import mesa`, S"))
    assert memory[0] == "10 MiB"  # above all of Mesa (the floor)
    assert memory[1].startswith("146 MiB (mesa; 117 as `gridmarket` imports it)")

    unmeasured = ("for scale: Mesa's own scheduling", "what `run()` adds to its floors")
    assert not any(k.startswith(unmeasured) for k in table)  # (Mesa's events not measured)
    events = [f'{{"events_cpu_s": {cpu}, "events": 8, "jobs": 4}}' for cpu in (2.25, 3.0, 1.2)]
    figures["mesa_events"] = {**probe(3.0, out=events[-1]), "outs": events}
    scale = {row[0]: row[1:4] for row in rows(figures)}
    mesa_events = next(v for k, v in scale.items() if k.startswith("for scale: Mesa's own"))
    # The events' own CPU, not the process's; the median of the rounds, not the last round's.
    assert mesa_events == ("2.25 s", "1.50 s", "1.50x")
    added = next(v for k, v in scale.items() if k.startswith("what `run()` adds to its floors"))
    assert added == ("6.00 s", "5.25 s", "1.14x")  # run() 6 s over planner 3 s + events 2.25 s

    # Figures saved before Mesa as gridmarket imports it was measured: no row claims it.
    del figures["mesa_cli"]
    older = {row[0]: row[1:4] for row in rows(figures)}
    assert not any(k.startswith("what bounds the process") for k in older)
    memory = next(v for k, v in older.items() if k.startswith("peak RSS above `import mesa`, S"))
    assert memory[1].startswith("146 MiB (mesa), ")


def test_the_other_simulators_ratio_gives_its_range_round_by_round():
    """CQSim 20, 30 and 24 s in three rounds beside gridmarket's 2, 2.5 and 3 s: medians 24 and
    2.5 s give 9.6x; round by round 10x, 12x and 8x."""
    from tests.benchmarks.bench_rows import rows

    def probe(cpus: list[float], out: str = "") -> dict:
        return {"cpu": sorted(cpus)[1], "cpus": cpus, "rss": 100_000.0, "out": out, "outs": [out]}

    inside = '{"utilization": 80.0, "mean_wait_s": 10.0, "run_cpu_s": 2.0, "planner_cpu_s": 1.0}'
    figures = {
        "loop": probe([1.0, 1.0, 1.0], out="utilization 80.0\nmean_wait_s 10.0\n"),
        "gm_inside": probe([2.0, 2.0, 2.0], out=inside),
        "gm_run": probe([2.0, 2.5, 3.0]),
        "cqsim": probe([20.0, 30.0, 24.0]),
        "mesa": probe([1.0, 1.0, 1.0]),
        "market": probe([1.1, 1.1, 1.1]),
        "version": probe([0.1, 0.1, 0.1]),
        "help": probe([0.1, 0.1, 0.1]),
    }
    table = {row[0]: row[3] for row in rows(figures)}
    assert table["SDSC-SP2 EASY: `gridmarket run` vs CQSim (EASY)"] == (
        "9.6x faster (8.0x to 12.0x by round)"
    )
    del figures["cqsim"]["cpus"]  # figures saved before the rounds were kept: the median only
    table = {row[0]: row[3] for row in rows(figures)}
    assert table["SDSC-SP2 EASY: `gridmarket run` vs CQSim (EASY)"] == "9.6x faster"


def test_the_instruction_counts_give_the_whole_trace_ratios_to_the_loop():
    """Hand-made counts: the loop's process 4 G instructions, the whole trace's build 6 G and
    build plus run 24 G (run() 18 G: 4.5x), the `gridmarket run` process 20 G (5x); the A/B row
    of the first 8,000 jobs stays. Counts saved before the whole trace was counted give no
    whole-trace row."""
    from tests.benchmarks.bench_rows import rows

    def probe(cpu: float, out: str = "") -> dict:
        return {"cpu": cpu, "rss": 100_000.0, "out": out, "outs": [out]}

    inside = '{"utilization": 80.0, "mean_wait_s": 10.0, "run_cpu_s": 2.0, "planner_cpu_s": 1.0}'
    figures = {
        "loop": probe(1.0, out="utilization 80.0\nmean_wait_s 10.0\n"),
        "gm_inside": probe(3.0, out=inside),
        "gm_run": probe(3.0),
        "mesa": probe(1.0),
        "market": probe(1.1),
        "version": probe(0.1),
        "help": probe(0.1),
        "callgrind": {
            "build": 1_000_000_000,
            "run": 3_000_000_000,
            "build_all": 6_000_000_000,
            "run_all": 24_000_000_000,
            "loop": 4_000_000_000,
            "gm_run": 20_000_000_000,
        },
    }
    table = {row[0]: row[1:4] for row in rows(figures)}
    run = next(v for k, v in table.items() if k.startswith("instructions, SDSC-SP2 EASY: `Grid"))
    assert run == ("18,000,000,000", "4,000,000,000", "4.50x")
    whole = next(v for k, v in table.items() if k.startswith("instructions, SDSC-SP2 EASY: who"))
    assert whole == ("20,000,000,000", "4,000,000,000", "5.00x")
    assert table["instructions: replay_script.py `run 8000` minus `build 8000`"][0] == (
        "2,000,000,000"
    )
    for key in ("build_all", "run_all", "loop", "gm_run"):
        del figures["callgrind"][key]
    older = [row[0] for row in rows(figures)]
    assert not any(k.startswith("instructions, SDSC-SP2") for k in older)
    assert "instructions: replay_script.py `run 8000` minus `build 8000`" in older
