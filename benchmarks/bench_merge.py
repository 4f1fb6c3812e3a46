"""Merging same-role runs is linear: ``merged_per_role`` and ``repair`` on long runs.

Each row times a run of 32,000 messages against four times a run of 8,000 in the
same process, so the ratio is ~1 when the work is linear in the run's length and
~4 or more when it is quadratic (pairwise merging copied the growing text once per
message: 8k / 16k / 32k took 298 / 1,396 / 5,775 ms in ``merged_per_role``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from messages import Message, Messages, repair

Row = tuple[str, float, float, str]

_TEXT = "It is 27 degrees and partly cloudy, with a light breeze from the river. " * 2


def _best_ms(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1000


def _rows(what: str, build: Callable[[int], Callable[[], object]]) -> Row:
    small, large = build(8_000), build(32_000)
    return (f"{what}, 32k run (ms)", _best_ms(large), 4 * _best_ms(small), "4 x the 8k run")


def bench_merge() -> list[Row]:
    """Rows: a long run merged by merged_per_role, and by repair (user run, system run)."""

    def merged(n: int) -> Callable[[], object]:
        ms = Messages([Message.user(f"{i} {_TEXT}") for i in range(n)])
        return ms.merged_per_role

    def repaired_users(n: int) -> Callable[[], object]:
        seq = [Message.system("s"), *(Message.user(f"{i} {_TEXT}") for i in range(n))]
        return lambda: repair(seq)

    def repaired_systems(n: int) -> Callable[[], object]:
        seq = [*(Message.system(f"{i} {_TEXT}") for i in range(n)), Message.user("u")]
        return lambda: repair(seq)

    return [
        _rows("merged_per_role of a user run", merged),
        _rows("repair() of a user run", repaired_users),
        _rows("repair() of a system run", repaired_systems),
    ]


if __name__ == "__main__":
    for what, value, base, desc in bench_merge():
        print(f"{what:<48} {value:>9.1f} ms {base:>9.1f} ms  ({desc})")
