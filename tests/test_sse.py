"""``messages.providers.iter_sse``: recorded event-stream bodies read back to their payloads,
the framing rules of the WHATWG "Server-sent events" standard, every provider's stream
skipping ``[DONE]``, and the GitHub Copilot proxy's stream whose item ids rotate."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import DecodeError, ValidationError
from messages.providers import PROVIDERS, ChatResponse, Provider, get_provider, iter_sse
from tests.conftest import FIXTURES, SECRET, fixture_entries, load_fixture

SSE = FIXTURES / "sse"

#: (raw body, the same recording's payloads as a .jsonl fixture, the provider that reads it)
RECORDED = [
    ("anthropic_container_response.txt", "anthropic/stream_recorded_container.jsonl", "anthropic"),
    ("openai_logprobs.sse", "openai/stream_recorded_logprobs.jsonl", "openai"),
    (
        "openai_responses_web_search_citation.sse",
        "openai_responses/stream_recorded_web_search_citation.jsonl",
        "openai_responses",
    ),
    ("gemini_text.sse", "gemini/stream_recorded_text.jsonl", "gemini"),
]


def _payloads(file: str) -> list[dict[str, Any]]:
    text = (FIXTURES / file).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _ways(body: bytes) -> dict[str, Any]:
    """The body as each HTTP client hands it over."""
    text = body.decode("utf-8")
    return {
        "bytes body": body,
        "str body": text,
        "binary file lines": body.splitlines(keepends=True),
        "requests iter_lines": body.splitlines(),
        "httpx iter_lines": text.splitlines(),
        "text file lines": text.splitlines(keepends=True),
    }


def _finish(provider: Provider, events: list[Any]) -> ChatResponse | str:
    """The finished response, or the text of the error finishing gave."""
    acc = provider.stream()
    try:
        for event in events:
            acc.feed(event)
        return acc.finish()
    except DecodeError as exc:
        return str(exc)


# -- recorded bodies ------------------------------------------------------------------------


@pytest.mark.parametrize(("body", "jsonl", "name"), RECORDED, ids=[r[0] for r in RECORDED])
def test_a_recorded_body_reads_back_to_its_payloads_however_it_is_handed_over(
    body: str, jsonl: str, name: str
) -> None:
    raw = (SSE / body).read_bytes()
    expected = _payloads(jsonl)
    for way, lines in _ways(raw).items():
        assert list(iter_sse(lines)) == expected, way
    provider = get_provider(name)
    assert _finish(provider, list(iter_sse(raw))) == _finish(provider, expected)


def test_the_recorded_bodies_show_the_framing_they_are_kept_for() -> None:
    anthropic = (SSE / "anthropic_container_response.txt").read_bytes()
    assert anthropic.startswith(b"event: message_start\n")
    assert anthropic.endswith(b'data: {"type":"message_stop"}\n')  # no blank line after it
    assert (SSE / "openai_logprobs.sse").read_bytes().endswith(b"data: [DONE]\n\n")
    assert (SSE / "gemini_text.sse").read_bytes().count(b"\r\n\r\n") == 3


def test_done_ends_the_stream_without_reading_further() -> None:
    def lines() -> Iterator[str]:
        yield 'data: {"n": 1}'
        yield ""
        yield "data: [DONE]"
        yield ""
        raise AssertionError("read past [DONE]")

    assert list(iter_sse(lines())) == [{"n": 1}]


# -- framing --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # data lines of one event join with a line feed (a JSON payload split over lines)
        ('data: {"a":\ndata: [1,\ndata: 2]}\n\n', [{"a": [1, 2]}]),
        # every line end the standard allows, mixed
        (
            'data: {"a": 1}\r\n\r\ndata: {"b": 2}\r\rdata: {"c": 3}\n\n',
            [{"a": 1}, {"b": 2}, {"c": 3}],
        ),
        # one space after the colon is dropped, and only one; none is needed
        ('data:{"a": 1}\n\ndata:  {"b": 2}\n\n', [{"a": 1}, {"b": 2}]),
        # comments (OpenRouter's keep-alive) and event, id, retry and unknown fields carry nothing
        (
            ": OPENROUTER PROCESSING\n\nevent: delta\nid: 7\nretry: 3000\nfoo: bar\n"
            ': mid-event comment\ndata: {"a": 1}\n\n',
            [{"a": 1}],
        ),
        # blank events and events of blank data are keep-alives
        ('\n\n\ndata:\n\ndata: \n\n:\n\nevent: ping\n\ndata: {"a": 1}\n\n', [{"a": 1}]),
        # the last event needs no blank line after it
        ('data: {"a": 1}\n\ndata: {"b": 2}', [{"a": 1}, {"b": 2}]),
        # a byte order mark before the first line is not part of it
        ('\ufeffdata: {"a": 1}\n\n', [{"a": 1}]),
        # a data field with no colon has an empty value (a line break inside the payload)
        ('data: {"a":\ndata\ndata: "x"}\n\n', [{"a": "x"}]),
        # [DONE] ends it, with or without its blank line, even before more events
        ('data: {"a": 1}\n\ndata: [DONE]\n\ndata: {"b": 2}\n\n', [{"a": 1}]),
        ('data: {"a": 1}\n\ndata: [DONE]', [{"a": 1}]),
        # a payload keeps its own line separators: U+2028 is not a line end in SSE
        ('data: {"a": "x\u2028y"}\n\n', [{"a": "x\u2028y"}]),
    ],
)
def test_framing(body: str, expected: list[dict[str, Any]]) -> None:
    assert list(iter_sse(body)) == expected
    assert list(iter_sse(body.encode("utf-8"))) == expected


def test_lines_may_be_str_and_bytes_mixed_with_or_without_their_ends() -> None:
    lines: list[str | bytes] = ["data: {", b'data: "a": 1}\r\n', "\n", b'data: {"b": 2}', b""]
    assert list(iter_sse(lines)) == [{"a": 1}, {"b": 2}]


def test_a_line_holding_a_whole_event_is_read_as_its_lines() -> None:
    chunks = ['event: x\ndata: {"a": 1}\n\n', 'data: {"b": 2}\n\n']
    assert list(iter_sse(chunks)) == [{"a": 1}, {"b": 2}]


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "path", "message"),
    [
        (f'data: {{"a": 1}}\n\n: x\n\ndata: {{"{SECRET}"\n\n', "event 2", "invalid JSON"),
        (f'data: ["{SECRET}"]\n\n', "event 1", "expected a JSON object, got array"),
        (f'data: "{SECRET}"\n\n', "event 1", "expected a JSON object, got string"),
        ("data: NaN\n\n", "event 1", "invalid JSON"),
        (f'data: {{}}\n\ndata: {{}}\n\ndata: {{"{SECRET}": ', "event 3", "invalid JSON"),
    ],
)
def test_a_payload_that_is_not_a_json_object_is_a_decode_error_naming_the_event(
    body: str, path: str, message: str
) -> None:
    with pytest.raises(DecodeError) as info:
        list(iter_sse(body))
    assert info.value.path == path
    assert message in info.value.message
    assert SECRET not in str(info.value)


def test_bytes_that_are_not_utf8_are_a_decode_error() -> None:
    with pytest.raises(DecodeError) as info:
        list(iter_sse([b'data: {"a": 1}', b"", b'data: {"\xff"}']))
    assert info.value.path == "event 2"


def test_a_line_that_is_not_text_is_a_decode_error_naming_it() -> None:
    with pytest.raises(DecodeError) as info:
        list(iter_sse(["data: {}", 7]))  # type: ignore[list-item]
    assert str(info.value) == "line 2: expected a line (str or bytes), got int"


def test_something_that_is_not_lines_is_a_validation_error() -> None:
    with pytest.raises(ValidationError) as info:
        iter_sse(7)  # type: ignore[arg-type]
    assert info.value.path == "lines"


def test_an_error_raised_by_the_lines_passes_through() -> None:
    class Dropped(OSError):
        pass

    def lines() -> Iterator[str]:
        yield 'data: {"a": 1}'
        yield ""
        raise Dropped

    events = iter_sse(lines())
    assert next(events) == {"a": 1}
    with pytest.raises(Dropped):
        next(events)


# -- properties -----------------------------------------------------------------------------

_json_objects = st.dictionaries(
    st.text(max_size=5),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=5,
    ),
    max_size=4,
)


@given(
    st.lists(_json_objects, max_size=5),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_any_objects_framed_any_way_read_back(
    objects: list[dict[str, Any]], end: str, named: bool, indent: bool, done: bool
) -> None:
    events = []
    for obj in objects:
        text = json.dumps(obj, indent=1 if indent else None)
        head = f"event: e{end}: note{end}" if named else ""
        data = "".join(f"data: {line}{end}" for line in text.split("\n"))
        events.append(head + data + end)
    body = "".join(events) + (f"data: [DONE]{end}{end}" if done else "")
    assert list(iter_sse(body)) == objects
    assert list(iter_sse(body.encode("utf-8").splitlines(keepends=True))) == objects


_pieces = st.sampled_from(
    ["data:", "data: ", "event: x", ": c", "[DONE]", "{", "}", '"a"', ":", "1", "[", "]", " "]
)
_line = st.lists(_pieces | st.text(max_size=4), max_size=6).map("".join)
_ends = st.sampled_from(["", "\n", "\r\n", "\r"])


@given(st.lists(st.tuples(_line, _ends), max_size=12), st.booleans())
def test_any_lines_give_objects_or_a_decode_error(lines: list[tuple[str, str]], raw: bool) -> None:
    texts = [text + end for text, end in lines]
    items: list[str | bytes] = list(texts)
    if raw:
        items = [text.encode("utf-8", "surrogatepass") for text in texts]
    try:
        for payload in iter_sse(items):
            assert type(payload) is dict
    except DecodeError:
        pass


@given(st.lists(st.binary(max_size=12), max_size=8))
def test_any_bytes_give_objects_or_a_decode_error(lines: list[bytes]) -> None:
    try:
        for payload in iter_sse(lines):
            assert type(payload) is dict
    except DecodeError:
        pass


# -- every provider's stream skips [DONE] -----------------------------------------------------


def _stream_events(name: str) -> list[Any]:
    """The events of the provider's first stream fixture (none when it has no fixture)."""
    streams = [e for e in fixture_entries(name) if e["kind"] == "stream"]
    return list(load_fixture(streams[0])) if streams else []


def _fed(provider: Provider, events: list[Any]) -> tuple[list[Any], ChatResponse | str, Any]:
    """The deltas, the finished response (or its error text) and the event count."""
    acc = provider.stream()
    deltas: list[Any] = []
    try:
        for event in events:
            deltas.extend(acc.feed(event))
        done: ChatResponse | str = acc.finish()
    except DecodeError as exc:
        done = str(exc)
    return deltas, done, getattr(acc, "event_count", None)


@pytest.mark.parametrize("name", sorted(PROVIDERS))
@pytest.mark.parametrize("marker", ["[DONE]", b"[DONE]", " [DONE]\n", b"[DONE]\r\n"])
def test_every_stream_skips_done_wherever_it_comes(name: str, marker: str | bytes) -> None:
    provider = get_provider(name)
    events = _stream_events(name)
    expected = _fed(provider, events)
    middle = len(events) // 2
    for fed in (
        [*events, marker],
        [marker, *events],
        [*events[:middle], marker, *events[middle:], marker],
    ):
        assert _fed(provider, fed) == expected


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_every_stream_reads_what_iter_sse_yields(name: str) -> None:
    provider = get_provider(name)
    events = _stream_events(name)
    # a fixture may hold the [DONE] marker as an event: it goes out as it came
    data = [e if isinstance(e, str) else json.dumps(e) for e in events]
    body = "".join(f"data: {d}\n\n" for d in data) + "data: [DONE]\n\n"
    assert _fed(provider, list(iter_sse(body))) == _fed(provider, events)


# -- the GitHub Copilot proxy: item ids rotate in every event ----------------------------------

COPILOT = "openai_responses/stream_recorded_copilot_id_rotation.jsonl"


def test_the_copilot_stream_parses_to_its_final_response() -> None:
    provider = get_provider("openai_responses")
    events = _payloads(COPILOT)
    item_ids = [e["item_id"] for e in events if "item_id" in e]
    assert len(set(item_ids)) == len(item_ids) > 50  # a new id in every event
    deltas, r, _ = _fed(provider, events)
    assert isinstance(r, ChatResponse)
    assert r == provider.parse_response(events[-1]["response"])
    assert "".join(d.text for d in deltas if d.kind == "text") == r.text
    assert r.text.startswith("There are **3** letter")
    assert [p.text for p in r.message.reasoning] == ["**Counting character occurrences**"]


@pytest.mark.parametrize(
    ("cut", "reasoning_id", "message_id"),
    [
        (68, "capture-id-8", "capture-id-68"),  # no response.completed: the done items' ids
        (30, "capture-id-8", "capture-id-30"),  # mid-answer: the last delta's id
    ],
)
def test_without_the_final_response_each_item_keeps_the_last_id_seen(
    cut: int, reasoning_id: str, message_id: str
) -> None:
    provider = get_provider("openai_responses")
    events = _payloads(COPILOT)[:cut]
    _, r, _ = _fed(provider, events)
    assert isinstance(r, ChatResponse)
    items = r.message.extras["openai_responses"]["items"]
    assert [i.get("reasoning", i.get("message", {})).get("id") for i in items] == [
        reasoning_id,
        message_id,
    ]
