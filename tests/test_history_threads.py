"""ConversationHistory under concurrent writers and readers (NFR-004a-32)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from messages import (
    ConversationHistory,
    Message,
    OrderingError,
    OrderingPolicy,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
)
from messages._ordering import check_sequence

WRITERS = 8
READERS = 8
SECONDS = 2.0


def _turn(writer: int, n: int) -> list[Message]:
    """One complete turn; every third one calls two tools and answers them."""
    user = Message.user(f"w{writer} n{n}")
    if n % 3:
        return [user, Message.assistant("ok")]
    calls = [ToolCall(f"w{writer}-{n}-a", "f", {}), ToolCall(f"w{writer}-{n}-b", "g", {})]
    return [
        user,
        ToolCallMessage(calls),
        ToolResultMessage(calls[1].id, "b"),
        ToolResultMessage(calls[0].id, "a"),
        Message.assistant("done"),
    ]


def _run(
    target: Callable[[int], None], count: int, errors: list[BaseException]
) -> list[threading.Thread]:
    def guarded(i: int) -> None:
        try:
            target(i)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    return threads


def test_eight_writers_and_eight_readers() -> None:
    strict = ConversationHistory([Message.system("sys")])
    lenient = ConversationHistory(policy=OrderingPolicy.lenient())
    written: list[list[list[Message]]] = [[] for _ in range(WRITERS)]
    singles: list[list[Message]] = [[] for _ in range(WRITERS)]
    stop = threading.Event()
    errors: list[BaseException] = []
    reads = [0] * READERS

    def writer(w: int) -> None:
        n = 0
        while not stop.is_set():
            # strict: whole turns, atomically, so alternation holds in any interleaving
            turn = _turn(w, n)
            strict.extend(turn)
            written[w].append(turn)
            # lenient: single adds (consecutive user messages are allowed there)
            m = Message.user(f"{w}:{n}")
            lenient.add(m)
            singles[w].append(m)
            n += 1

    def reader(r: int) -> None:
        while not stop.is_set():
            snap = strict.messages()
            # a reader never sees half a turn: every snapshot is valid and complete
            check_sequence(OrderingPolicy.strict(), snap)
            assert snap[-1].role.value in ("system", "assistant")
            assert strict.pending_tool_calls == ()
            last = strict.last
            assert last is not None
            assert last.role.value in ("system", "assistant")
            assert len(strict) >= len(snap)
            probe = snap[len(snap) // 2]
            assert strict.get(probe.id) is probe
            assert sum(1 for _ in strict) >= len(snap)
            lsnap = lenient.messages()
            if lsnap:
                assert lenient.get(lsnap[-1].id) is lsnap[-1]
            reads[r] += 1

    threads = _run(writer, WRITERS, errors) + _run(reader, READERS, errors)
    time.sleep(SECONDS)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert all(reads), "every reader ran"

    strict.validate()
    lenient.validate()
    assert strict.pending_tool_calls == ()

    # exactly the expected messages: each writer's messages, in its own order
    snap = strict.messages()
    expected = [m for w in written for turn in w for m in turn]
    assert len(snap) == 1 + len(expected)
    assert {id(m) for m in snap[1:]} == {id(m) for m in expected}
    position = {id(m): i for i, m in enumerate(snap)}
    for w in written:
        positions = [position[id(m)] for turn in w for m in turn]
        assert positions == sorted(positions)
        for turn in w:  # a turn is contiguous: extend is atomic
            start = position[id(turn[0])]
            assert [position[id(m)] for m in turn] == list(range(start, start + len(turn)))

    lsnap = lenient.messages()
    assert len(lsnap) == sum(len(s) for s in singles)
    lpos = {id(m): i for i, m in enumerate(lsnap)}
    for s in singles:
        order = [lpos[id(m)] for m in s]
        assert order == sorted(order)
    for m in lsnap:
        assert lenient.get(m.id) is m


def test_concurrent_adds_of_one_message_admit_it_once() -> None:
    h = ConversationHistory(policy=OrderingPolicy.lenient())
    shared = [Message.user(str(i)) for i in range(200)]
    errors: list[BaseException] = []
    rejected = [0] * WRITERS

    def try_add(m: Message) -> bool:
        try:
            h.add(m)
        except OrderingError as exc:
            assert exc.rule == "duplicate_id"
            return False
        return True

    def writer(w: int) -> None:
        rejected[w] = sum(not try_add(m) for m in shared)

    for t in _run(writer, WRITERS, errors):
        t.join(timeout=30)
    assert errors == []
    assert sorted(id(m) for m in h) == sorted(id(m) for m in shared)
    assert sum(rejected) == len(shared) * (WRITERS - 1)
