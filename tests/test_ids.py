"""Message ids: unique across processes (fork included) and time-ordered."""

from __future__ import annotations

import multiprocessing
import os
import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from messages import UserMessage
from messages._ids import counter, new_id, stamp_created_at, stamp_id, time_ns


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
    ns = time_ns()
    created = stamp_created_at(ns)
    assert int(stamp_id(ns, next(counter))[:13], 16) // 1000 == int(created.timestamp() * 1000)


@pytest.mark.parametrize("read_first", ["id", "created_at"])
def test_a_fresh_message_id_and_created_at_agree_whichever_is_read_first(read_first: str) -> None:
    m = UserMessage("x")
    if read_first == "created_at":
        created = m.created_at
        mid = m.id
    else:
        mid = m.id
        created = m.created_at
    assert int(mid[:13], 16) // 1000 == int(created.timestamp() * 1000)
    assert (m.id, m.created_at) == (mid, created)


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


def _report_ids(q: Any, before: list[UserMessage]) -> None:
    q.put(([m.id for m in before], [UserMessage("in the child").id for _ in range(50)]))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_message_made_before_a_fork_has_one_id_in_both_processes() -> None:
    ctx = multiprocessing.get_context("fork")
    read = [UserMessage("read before the fork") for _ in range(5)]
    read_ids = [m.id for m in read]
    unread = [UserMessage("read after the fork") for _ in range(5)]
    q: Any = ctx.Queue()
    p = ctx.Process(target=_report_ids, args=(q, read + unread))
    p.start()
    seen_in_child, made_in_child = q.get(timeout=30)
    p.join(timeout=30)
    assert seen_in_child == read_ids + [m.id for m in unread]
    made_here = [UserMessage("in the parent").id for _ in range(50)]
    assert not set(made_in_child) & set(made_here)


def test_a_generated_id_carries_the_creation_time_to_the_microsecond() -> None:
    m = UserMessage("x")
    before = m.created_at
    mid = m.id  # made now; the creation time is read from it from then on
    assert int(mid[:13], 16) == (before - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(
        microseconds=1
    )
    assert m.created_at == before and m.id == mid
    again = UserMessage.from_dict(m.to_dict())
    assert (again.id, again.created_at) == (mid, before)
