"""How many students can one PosEnc Explorer process, or N replicas behind the proxy, serve? Not a test.

    python bench/load.py        # 1 process at 20, 60, 120 students, 3 memory waves, then 2 replicas behind
                                # nginx at 40, 120, 240 students: about 11 minutes
    python bench/load.py --replicas 1 --levels 40,80 --waves 0
    python bench/load.py --replicas 2 --levels 40,80 --waves 0 --post-script-gc true   # 80 and 160 students
    python bench/load.py --url http://127.0.0.1:8501 --levels 20   # an app you started yourself
    python bench/load.py --bare baseline_app.py --levels 100,200 --waves 0   # Streamlit's own floor: the quick
                                        # one-slider, one-heatmap app under the same students
    python bench/load.py --class 200    # a live class: 200 students answer in 10 s, two replicas sharing Redis,
                                        # one replica restarted halfway (bench/class_scenario.py)
    python bench/load.py --class 200 --stall-store 10   # the same with Redis frozen for 10 s instead

It starts its own app processes on loopback ports (and, for two or more replicas, nginx configured by
deploy/nginx/default.conf.template, the compose file's proxy), warms every page once on every replica, then for
each level opens N simulated students (bench/st_client.py: Streamlit's own protobufs over /_stcore/stream,
the messages a browser sends) spread over the lesson pages. Each moves a random slider one step after a think
time of 3-7 s (mean 5 s, so N students ask for N/5 moves per second) and now and then opens another page.
Latency is key press (the rerun request sent) to run finished (`script_finished` received). Then, unless
--waves 0, three waves of students open pages, idle, move sliders and leave, to measure memory per session
and whether it is returned. Everything stops by itself; only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import re
import resource
import statistics
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from st_client import Student, Tally  # noqa: E402  (bench/ is on sys.path: this script lives there)

from deploy.local_proxy import app_processes, free_port, nginx_proxy  # noqa: E402
from page_kit import registry  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
LOOKUP = re.compile(r'^cache_lookups_total\{.*cache_type="st_cache_data".*result="(hit|miss)"\} (\d+)', re.M)
COMPUTE = re.compile(r'^cache_compute_duration_seconds_sum\{.*cache_type="st_cache_data".*\} ([0-9.e+-]+)', re.M)


@dataclass
class Replica:
    url: str
    pid: int | None  # None for a server we did not start (no RSS or CPU readings)

    def rss_mb(self) -> float:
        if self.pid is None:
            return float("nan")
        status = Path(f"/proc/{self.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024

    def cpu_s(self) -> float:
        if self.pid is None:
            return float("nan")
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime

    def metrics(self) -> str:
        with urllib.request.urlopen(f"{self.url}/_stcore/metrics", timeout=10) as response:
            return response.read().decode()

    def sessions(self) -> str:
        """Streamlit's own session counters from /_stcore/metrics (reconnects are websocket drops it saw)."""
        text = self.metrics()
        active = re.search(r"^active_sessions (\d+)", text, re.M)
        events = dict(re.findall(r'^session_events_total\{type="(\w+)"\} (\d+)', text, re.M))
        return (f"active {active.group(1) if active else '?'}, connects {events.get('connect', '?')}, "
                f"reconnects {events.get('reconnect', '?')}, disconnects {events.get('disconnect', '?')}")

    def cache_counts(self) -> tuple[int, int, float]:
        """(hits, misses, seconds computing misses) of every st.cache_data function, from /_stcore/metrics."""
        text = self.metrics()
        hits = sum(int(n) for kind, n in LOOKUP.findall(text) if kind == "hit")
        misses = sum(int(n) for kind, n in LOOKUP.findall(text) if kind == "miss")
        return hits, misses, sum(float(s) for s in COMPUTE.findall(text))


@contextlib.contextmanager
def replicas_for(count: int, args):
    """The app processes of this run, started as the Dockerfile starts them, with the run's overrides; with
    --bare, one process of that bench/ script instead, served as bench/floor.py serves it."""
    if args.bare:
        from floor import bare_process

        with bare_process(args.bare) as (url, pid):
            yield [Replica(url, pid)]
        return
    options = []
    if args.post_script_gc is not None:
        options += ["--runner.postScriptGC", args.post_script_gc]
    if args.compression:
        options += ["--server.enableWebsocketCompression", "true"]
    if args.server_log:
        Path(args.server_log).mkdir(parents=True, exist_ok=True)
    with app_processes(count, options, args.server_log) as started:
        yield [Replica(url, pid) for url, pid in started]


async def students(url: str, pages: list[str], count: int, seconds: float, seed: int, tally: Tally,
                   *, active: bool = True, ramp_s: float = 5.0, compression: bool = False) -> None:
    """`count` students arriving over ramp_s, each working until `seconds` after the first arrived."""
    rng = random.Random(seed)
    stop_at = time.monotonic() + ramp_s + seconds

    async def one(i: int) -> None:
        await asyncio.sleep(ramp_s * i / max(1, count))
        student = Student(url, pages, random.Random(rng.random()), tally, compression=compression)
        try:
            await student.run(stop_at, active=active)
        except Exception as error:  # a bug in this client must show up in the results, not end the run
            tally.error(f"load-test client: {type(error).__name__}: {error}")

    await asyncio.gather(*(one(i) for i in range(count)))


def cpu_pressure_us() -> float | None:
    """Linux PSI: total microseconds during which some runnable task waited for a CPU (None where unavailable)."""
    try:
        line = Path("/proc/pressure/cpu").read_text().splitlines()[0]  # "some avg10=... total=<us>"
        return float(line.rsplit("total=", 1)[1])
    except (OSError, IndexError, ValueError):
        return None


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(value: float) -> str:
    return "-" if value != value else f"{1000 * value:,.0f}"


def slow_pages(runs: list[tuple[str, str, float]], p95: float, top: int = 8) -> list[tuple]:
    """Which pages make the tail: (page, moves over p95, visits over p95, the page's runs, its slowest run) for
    the pages with the most runs over ``p95``, so a fix starts where the students wait."""
    over: dict[str, list[int]] = {}
    count: dict[str, int] = {}
    worst: dict[str, float] = {}
    for page, kind, seconds in runs:
        count[page] = count.get(page, 0) + 1
        worst[page] = max(worst.get(page, 0.0), seconds)
        if seconds > p95:
            over.setdefault(page, [0, 0])[kind == "visit"] += 1
    ranked = sorted(over, key=lambda page: (-sum(over[page]), -worst[page]))[:top]
    return [(page, *over[page], count[page], worst[page]) for page in ranked]


async def run_level(url: str, replicas: list[Replica], pages: list[str], n: int, args) -> dict:
    tally = Tally()
    cache0 = [r.cache_counts() for r in replicas]
    cpu0, wall0, client0 = [r.cpu_s() for r in replicas], time.monotonic(), resource.getrusage(resource.RUSAGE_SELF)
    pressure0 = cpu_pressure_us()
    rss_trace: list[list[float]] = []

    async def sample() -> None:
        while True:
            rss_trace.append([r.rss_mb() for r in replicas])
            await asyncio.sleep(5)

    sampler = asyncio.create_task(sample())
    await students(url, pages, n, args.seconds, args.seed + n, tally, compression=args.compression)
    sampler.cancel()
    wall = time.monotonic() - wall0
    pressure1 = cpu_pressure_us()
    client1 = resource.getrusage(resource.RUSAGE_SELF)
    cache1 = [r.cache_counts() for r in replicas]
    hits = sum(c1[0] - c0[0] for c0, c1 in zip(cache0, cache1, strict=True))
    misses = sum(c1[1] - c0[1] for c0, c1 in zip(cache0, cache1, strict=True))
    runs = tally.latencies["move"] + tally.latencies["visit"]
    return {
        "n": n, "moves_per_s": len(runs) / wall, "asked_per_s": tally.requested / wall,
        "median": statistics.median(runs) if runs else float("nan"), "p95": percentile(runs, 0.95),
        "move_p95": percentile(tally.latencies["move"], 0.95), "visit_p95": percentile(tally.latencies["visit"], 0.95),
        "first_p95": percentile(tally.latencies["first"], 0.95),
        "errors": sum(tally.errors.values()), "error_kinds": tally.errors, "drops": tally.drops,
        "cpu": [100 * (r.cpu_s() - c) / wall for r, c in zip(replicas, cpu0, strict=True)],
        # CPU time barely depends on what else the machine runs, unlike latency: the fair way to compare settings
        "cpu_ms_per_run": 1000 * sum(r.cpu_s() - c for r, c in zip(replicas, cpu0, strict=True))
        / max(1, len(runs) + len(tally.latencies["first"])),
        "client_cpu": 100 * ((client1.ru_utime + client1.ru_stime) - (client0.ru_utime + client0.ru_stime)) / wall,
        "rss_trace": rss_trace, "hit_rate": hits / (hits + misses) if hits + misses else float("nan"),
        "compute_s": sum(c1[2] - c0[2] for c0, c1 in zip(cache0, cache1, strict=True)),
        "sessions": [r.sessions() for r in replicas],
        "slow_pages": slow_pages(tally.runs, percentile(runs, 0.95)),
        "kb_per_run": tally.bytes_in / 1024 / max(1, len(runs) + len(tally.latencies["first"])),
        "deflated": tally.bytes_deflated / tally.bytes_in if tally.bytes_in and args.compression else None,
        # share of the level's wall time in which some runnable task (a replica, nginx, this client) waited
        # for a core: why replicas on one small machine do not add up to N times one
        "cpu_wait": None if pressure0 is None or pressure1 is None else (pressure1 - pressure0) / 1e4 / wall,
    }


def print_level(row: dict) -> None:
    cpu = " + ".join(f"{c:.0f}" for c in row["cpu"])
    rss = [" / ".join(f"{v:.0f}" for v in sample) for sample in row["rss_trace"][::2]]
    print(f"| {row['n']} | {row['moves_per_s']:.1f} of {row['asked_per_s']:.1f} | {ms(row['median'])} | "
          f"{ms(row['p95'])} | {ms(row['move_p95'])} / {ms(row['visit_p95'])} | {ms(row['first_p95'])} | "
          f"{row['errors']} | {row['drops']} | {cpu} | {row['cpu_ms_per_run']:.0f} | {row['client_cpu']:.0f} | "
          f"{row['hit_rate']:.0%} | {row['compute_s']:.1f} | {row['kb_per_run']:.0f} | "
          f"{'-' if row['cpu_wait'] is None else format(row['cpu_wait'], '.0f')} | {', '.join(rss)} |", flush=True)
    for i, sessions in enumerate(row["sessions"]):
        print(f"    /_stcore/metrics, replica {i + 1}, since it started: {sessions}")
    if row["deflated"] is not None:
        print(f"    websocket compression: {row['deflated']:.0%} of the bytes on the wire")
    if row["slow_pages"]:
        print("    the runs over this level's p95, by page (page: moves + visits over it, of its runs; its slowest "
              "ms): " + "; ".join(f"{page}: {moves} + {visits} of {runs}, {ms(worst)}"
                                  for page, moves, visits, runs, worst in row["slow_pages"]))
    for kind, count in row["error_kinds"].items():
        print(f"    error x{count}: {kind}")


LEVEL_HEADER = ("| students | runs/s served of asked (a run: a slider move or a page visit) | median ms | p95 ms | "
                "p95 move / page visit ms | p95 first load ms | errors | ws drops | "
                "server CPU % of a core (per replica) | server CPU ms per script run (first loads too) | "
                "client CPU % | "
                "st.cache_data hit rate | s computing misses | KB per run | % of time a task waited for a core | "
                "RSS MB per replica, every 10 s |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


async def run_waves(url: str, replicas: list[Replica], pages: list[str], args) -> None:
    """Waves of students arrive, idle, work, leave: memory per session and memory returned."""
    rss = lambda: [r.rss_mb() for r in replicas]  # noqa: E731
    n, before = args.wave_size, rss()
    print(f"\nMemory: {args.waves} waves of {n} students; RSS MB per replica (summed when several). A closed "
          f"session is kept {args.ttl_s} s for a reconnect (server.disconnectedSessionTTL) and dropped at the "
          "next disconnect after that, so each wave ends with a wait and one probe session.")
    print(f"start: {sum(before):.0f}")
    print("| wave | with N idle sessions | per idle session | after N active | per active session | "
          f"after they left + {args.ttl_s + 5} s |\n|---|---|---|---|---|---|")
    for wave in range(1, args.waves + 1):
        tally, start = Tally(), rss()
        idle_task = asyncio.create_task(students(url, pages, n, 8, args.seed + 1000 * wave, tally, active=False))
        await asyncio.sleep(10)  # everyone has loaded their first page and sits still
        idle = rss()
        await idle_task
        await students(url, pages, n, args.wave_seconds, args.seed + 1000 * wave + 1, tally)
        active = rss()
        await asyncio.sleep(args.ttl_s + 5)
        await students(url, pages, len(replicas), 0.5, 7, Tally(), active=False, ramp_s=0.5)  # trigger the reaping
        after = rss()
        print(f"| {wave} | {sum(idle):.0f} | {(sum(idle) - sum(start)) / n:.2f} | {sum(active):.0f} | "
              f"{(sum(active) - sum(start)) / n:.2f} | {sum(after):.0f} |   "
              f"errors {sum(tally.errors.values())}, drops {tally.drops}", flush=True)


def lesson_pages() -> list[str]:
    return [p.url_path for p in registry.all_pages() if p is not registry.HOME]


async def warm(replicas: list[Replica], pages: list[str]) -> None:
    """Every page once on every replica: the first visit imports modules and is not what a class sees later."""
    for replica in replicas:
        for page in pages:
            tally = Tally()
            student = Student(replica.url, [page], random.Random(0), tally)
            await student.run(time.monotonic(), active=False)


async def run_setup(count: int, pages: list[str], args) -> list[dict]:
    """Start `count` replicas (behind nginx when more than one), warm them, run the levels scaled by `count`."""
    levels = [n * count for n in args.levels]
    print(f"\n## {count if not args.url else 'an external'} app process(es)"
          f"{' behind nginx' if count > 1 and not args.url else ''}: {', '.join(map(str, levels))} students")
    with contextlib.ExitStack() as stack:
        if args.url:
            replicas, url = [Replica(args.url.rstrip("/"), None)], args.url.rstrip("/")
        else:
            replicas = stack.enter_context(replicas_for(count, args))
            url = replicas[0].url
            if count > 1:
                url, _log = stack.enter_context(nginx_proxy([r.url.removeprefix("http://") for r in replicas],
                                                            free_port()))
        started = time.monotonic()
        await warm(replicas, pages)
        print(f"warm-up (every page once per replica): {time.monotonic() - started:.0f} s; "
              f"RSS MB per replica {' / '.join(f'{r.rss_mb():.0f}' for r in replicas)}; "
              f"load average {os.getloadavg()[0]:.1f}\n")
        print(LEVEL_HEADER)
        rows = []
        for n in levels:
            rows.append(await run_level(url, replicas, pages, n, args))
            print_level(rows[-1])
        if args.waves and count == args.replicas[0]:
            await run_waves(url, replicas, pages, args)
    return rows


def holds(row: dict) -> bool:
    """p95 under 300 ms, no errors, no drops, and the server kept up with what was asked."""
    return (row["p95"] < 0.3 and not row["errors"] and not row["drops"]
            and row["moves_per_s"] >= 0.95 * row["asked_per_s"])


async def class_setup(args) -> None:
    """--class N: two replicas behind nginx sharing a fresh redis-server; one live class (bench/class_scenario.py)."""
    import class_scenario

    from deploy.local_redis import redis_process
    from live_class.rooms import REDIS_URL_ENV

    load = os.getloadavg()
    print(f"bench/load.py --class: {os.cpu_count()} cores, load average before start {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} (1/5/15 min)")
    with redis_process() as redis, contextlib.ExitStack() as stack:
        os.environ[REDIS_URL_ENV] = redis.url  # the replicas inherit it: every one talks to this Redis
        # every simulated student reaches nginx from this machine's one address: the per-address join limit (a
        # class behind one NAT) is raised to the class's size, as a teacher of a large hall behind one NAT would
        os.environ["POSENC_CLASS_SEATS_PER_CLIENT"] = str(max(60, 2 * args.class_students))
        os.environ["POSENC_CLASS_SEATS_PER_ROOM_MINUTE"] = str(max(200, 2 * args.class_students))
        replicas = stack.enter_context(app_processes(2, [], args.server_log))
        url, _log = stack.enter_context(nginx_proxy([u.removeprefix("http://") for u, _ in replicas], free_port()))
        await warm([Replica(u, pid) for u, pid in replicas], [class_scenario.PAGE])
        print(class_scenario.HEADER)
        row = await class_scenario.run_class(url, redis, replicas, args.class_students, args.class_window,
                                             args.seed, args.stall_store)
        class_scenario.report(row, args.class_window)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


async def main(args) -> None:
    if args.class_students:
        await class_setup(args)
        return
    pages = [""] if args.bare else args.pages or lesson_pages()  # "": a bare script's only page
    load = os.getloadavg()
    print(f"bench/load.py: {f'bench/{args.bare}, not the app' if args.bare else f'{len(pages)} lesson pages'}, "
          f"{args.seconds:.0f} s per level, think time 3-7 s, "
          f"postScriptGC={args.post_script_gc or 'as in .streamlit/config.toml'}, websocket compression "
          f"{'on' if args.compression else 'off'}, figure cache {'off' if args.no_figure_cache else 'on'}, "
          f"hero frames {'off' if args.no_hero_frames else 'on'}")
    print(f"machine: {os.cpu_count()} cores, load average before start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          "(1/5/15 min); other work on the machine makes every latency here pessimistic")
    held = {}
    for count in args.replicas:
        rows = await run_setup(count, pages, args)
        held[count] = max((r["n"] for r in rows if holds(r)), default=0)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}. A level holds when p95 < 300 ms, with no errors or "
          "drops, and the runs served keep up with the runs asked.")
    for count, n in held.items():
        print(f"largest level that held with {count} process(es): " + (f"{n} students" if n else "none"))
    if len(held) > 1 and held[args.replicas[0]]:
        first = args.replicas[0]
        for count, n in list(held.items())[1:]:
            print(f"{count} vs {first} process(es): {n / held[first]:.2f}x (levels are {count // first}x apart, "
                  "so this is coarse; rerun with finer --levels around the limit)")


def configured_ttl_s() -> int:
    found = re.search(r"^disconnectedSessionTTL\s*=\s*(\d+)", (ROOT / ".streamlit" / "config.toml").read_text(), re.M)
    return int(found.group(1)) if found else 120  # 120: Streamlit's default


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    numbers = lambda s: [int(x) for x in s.split(",") if x]  # noqa: E731
    parser.add_argument("--replicas", type=numbers, default=[1, 2],
                        help="setups to run one after the other: app processes (more than one: behind nginx)")
    parser.add_argument("--levels", default=[20, 60, 120], type=numbers,
                        help="students per level for one process; a setup with N processes runs N times as many")
    parser.add_argument("--seconds", type=float, default=30, help="seconds each level runs after the arrivals")
    parser.add_argument("--waves", type=int, default=3, help="memory waves after the levels (0: none)")
    parser.add_argument("--wave-size", type=int, default=40)
    parser.add_argument("--wave-seconds", type=float, default=15)
    parser.add_argument("--ttl-s", type=int, default=configured_ttl_s(),
                        help="the app's server.disconnectedSessionTTL (default: read from .streamlit/config.toml)")
    parser.add_argument("--post-script-gc", choices=["true", "false"], default=None,
                        help="override runner.postScriptGC (default: .streamlit/config.toml)")
    parser.add_argument("--no-hero-frames", action="store_true",
                        help="send no frames ahead of the hand (POSENC_HERO_FRAMES=off), to compare")
    parser.add_argument("--no-figure-cache", action="store_true",
                        help="build every figure on every run (POSENC_FIGURE_CACHE=off), to compare with the cache")
    parser.add_argument("--compression", action="store_true", help="websocket compression on, server and client")
    parser.add_argument("--pages", type=lambda s: [p for p in s.split(",") if p],
                        help="only these lesson pages (url paths, comma-separated); default: all")
    parser.add_argument("--server-log", help="write each app process's output (tracebacks too) to this folder")
    parser.add_argument("--bare", choices=["baseline_app.py", "bare_elements_app.py"],
                        help="load a bare bench/ script instead of the app (one process): what Streamlit itself "
                             "holds on this machine under the same students")
    parser.add_argument("--url", help="load an app that is already running (no RSS/CPU readings)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--class", dest="class_students", type=int, default=0,
                        help="run the live-class scenario with this many students instead of the levels")
    parser.add_argument("--class-window", type=float, default=10.0, help="seconds in which the class answers")
    parser.add_argument("--stall-store", type=float, default=0.0,
                        help="freeze Redis for this many seconds from the window's middle, instead of restarting a "
                             "replica")
    args = parser.parse_args(argv)
    if (not args.replicas or not 1 <= min(args.replicas) <= max(args.replicas) <= 8 or not args.levels
            or max(args.levels) * max(args.replicas) > 1000 or args.seconds > 600):
        parser.error("keep it bounded: 1-8 replicas, at most 1,000 students and 600 s per level")
    if not 0 <= args.class_students <= 1000 or not 1 <= args.class_window <= 120 or not 0 <= args.stall_store <= 60:
        parser.error("keep the class bounded: at most 1,000 students, an answer window of 1-120 s")
    if args.url or args.bare:
        args.replicas = [1]
    if args.no_figure_cache:  # the app processes this script starts inherit it
        os.environ["POSENC_FIGURE_CACHE"] = "off"
    if args.no_hero_frames:
        os.environ["POSENC_HERO_FRAMES"] = "off"
    if args.pages and set(args.pages) - set(lesson_pages()):
        parser.error(f"unknown pages: {', '.join(sorted(set(args.pages) - set(lesson_pages())))}")
    if args.url and not re.match(r"^http://(127\.0\.0\.1|localhost)(:\d+)?/?$", args.url):
        parser.error("--url must be a loopback address (http://127.0.0.1:PORT)")
    return args


if __name__ == "__main__":
    asyncio.run(main(parse_args()))
