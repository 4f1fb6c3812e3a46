"""Timing helpers shared by the benchmark scripts: interleaved repeats, best-of."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def ns_per_op(fn: Callable[[], object], number: int = 0, repeat: int = 7) -> float:
    """Best-of-``repeat`` nanoseconds per call of ``fn`` (auto-sizes ``number``)."""
    if number <= 0:
        number = 1
        while True:
            t0 = time.perf_counter_ns()
            for _ in range(number):
                fn()
            if time.perf_counter_ns() - t0 > 20_000_000:
                break
            number *= 2
    best = float("inf")
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter_ns()
            for _ in range(number):
                fn()
            best = min(best, (time.perf_counter_ns() - t0) / number)
    finally:
        if gc_was:
            gc.enable()
    return best


def compare(pairs: dict[str, Callable[[], object]], repeat: int = 7) -> dict[str, float]:
    """Time several functions interleaved (one round of each per repeat); best ns/op each."""
    numbers = {k: _size(f) for k, f in pairs.items()}
    best = dict.fromkeys(pairs, float("inf"))
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            for k, f in pairs.items():
                n = numbers[k]
                t0 = time.perf_counter_ns()
                for _ in range(n):
                    f()
                best[k] = min(best[k], (time.perf_counter_ns() - t0) / n)
    finally:
        if gc_was:
            gc.enable()
    return best


def _size(fn: Callable[[], object]) -> int:
    number = 1
    while True:
        t0 = time.perf_counter_ns()
        for _ in range(number):
            fn()
        if time.perf_counter_ns() - t0 > 10_000_000:
            return number
        number *= 2
