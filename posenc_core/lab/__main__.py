"""Headless lab: ``python -m posenc_core.lab --json PATH [--quick] [--seed N] [--device cpu|cuda]``.

Trains one tiny transformer per method at length T, evaluates every method at T, 2T, 4T and 8T,
prints progress, and writes {"task", "train_len", "eval_lengths", "methods", "seconds"} as JSON.
"""

from __future__ import annotations

import argparse
import sys

from .._backend import default_device
from .methods import LAB_METHODS
from .results import save_lab_results
from .train import lab_settings, run_lab


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m posenc_core.lab", description=__doc__.splitlines()[0])
    parser.add_argument("--json", required=True, metavar="PATH", help="where to write the results")
    parser.add_argument("--quick", action="store_true", help="the quick preset (about a minute on two CPU cores); "
                                                             "without it the full preset runs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", choices=("cpu", "cuda"), default=None,
                        help="default: cuda when a CUDA device is visible, else cpu")
    parser.add_argument("--train-len", type=int, default=None, metavar="T", help="override the preset's T")
    parser.add_argument("--steps", type=int, default=None, help="override the preset's steps per method")
    parser.add_argument("--methods", default=",".join(LAB_METHODS),
                        help=f"comma-separated subset of: {', '.join(LAB_METHODS)}")
    parser.add_argument("--attention", default=None, metavar="NPZ",
                        help="also save one head's attention maps per method at T and 4T to this .npz")
    return parser


def _log(event: dict) -> None:
    if event["kind"] == "train":
        if event["step"] == event["steps"] or event["step"] % max(1, event["steps"] // 5) == 0:
            print(f"[{100 * event['fraction']:5.1f}%] train {event['method']:<10} step {event['step']:>5}/"
                  f"{event['steps']}  loss {event['loss']:.3f}  acc {event['accuracy']:.3f}  "
                  f"({event['elapsed']:.0f}s)", flush=True)
    else:
        acc = "n/a (cannot run at this length)" if event["accuracy"] is None else f"acc {event['accuracy']:.3f}"
        print(f"[{100 * event['fraction']:5.1f}%] eval  {event['method']:<10} length {event['length']:>5}  {acc}",
              flush=True)


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = lab_settings("quick" if args.quick else "full", train_len=args.train_len, steps=args.steps,
                                seed=args.seed, device=args.device or default_device())
        result = run_lab(settings, args.methods, progress=_log, with_attention=args.attention is not None)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    save_lab_results(result, args.json, args.attention)
    print(f"wrote {args.json} ({result.seconds:.1f}s)" + (f" and {args.attention}" if args.attention else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
