"""Message ids: unique across processes (fork included) and time-ordered."""

from __future__ import annotations

import multiprocessing
import os
import re
import time

import pytest

from messages import UserMessage
from messages._ids import new_id, stamp, stamp_created_at, stamp_id


def _ids_in_child(q: multiprocessing.Queue[list[str]]) -> None:
    q.put([UserMessage("x").id for _ in range(500)])


def test_id_format() -> None:
    assert re.fullmatch(r"[0-9a-f]{32}", new_id())


def test_ids_sort_by_time() -> None:
    a = new_id()
    time.sleep(0.002)
    b = new_id()
    assert a < b


def test_stamp_gives_consistent_id_and_time() -> None:
    s = stamp()
    created = stamp_created_at(s)
    assert int(stamp_id(s)[:12], 16) == int(created.timestamp() * 1000)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_processes_mint_distinct_ids() -> None:
    ctx = multiprocessing.get_context("fork")
    pending = [UserMessage("before fork") for _ in range(10)]  # ids not yet formatted
    q: multiprocessing.Queue[list[str]] = ctx.Queue()
    procs = [ctx.Process(target=_ids_in_child, args=(q,)) for _ in range(3)]
    for p in procs:
        p.start()
    child_ids = [q.get(timeout=30) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    parent_ids = [UserMessage("x").id for _ in range(500)] + [m.id for m in pending]
    everything = parent_ids + [i for ids in child_ids for i in ids]
    assert len(set(everything)) == len(everything)
