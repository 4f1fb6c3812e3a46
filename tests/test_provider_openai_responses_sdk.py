"""OpenAI Responses shapes checked with the official SDK's types (the ``openai`` package
of the dev extra, through pydantic, which it depends on): the request bodies the
formatter writes, for this provider's fixtures and for every conversation of the other
providers' fixtures, and the fixtures themselves (Response objects, stream events).

The SDK's ``ResponseInputImageParam`` marks ``detail`` as required (the API reference
says it defaults to ``auto``): every image is sent with one, ``"auto"`` when the part
has none, and a parsed ``"auto"`` is a part without a detail, which goes back as
``"auto"``.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
from openai.types.responses import (
    Response,
    ResponseInputImageParam,
    ResponseInputParam,
    ResponseStreamEvent,
    ToolParam,
)
from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticValidationError

from messages import FilePart, ImagePart, Message, TextPart
from messages.providers import LossWarning, get_provider
from messages.providers.openai_responses import PROVIDER
from tests.conftest import fixture_entries, load_fixture

P = PROVIDER
NAME = "openai_responses"

INPUT: TypeAdapter[Any] = TypeAdapter(ResponseInputParam)
TOOLS: TypeAdapter[Any] = TypeAdapter(list[ToolParam])
EVENT: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


def fixture_images_with_detail(items: list[Any]) -> list[Any]:
    """A fixture's items with ``detail: "auto"`` on message images that have none: the
    API takes them (OpenAI's own examples leave it out), the SDK's type does not."""
    out = copy.deepcopy(items)
    for item in out:
        content = item.get("content") if isinstance(item, dict) and "role" in item else None
        for part in content if isinstance(content, list) else ():
            if part.get("type") == "input_image":
                part.setdefault("detail", "auto")
    return out


def check_body(body: dict[str, Any], formatted: bool = True) -> None:
    """The request body validates against the SDK's parameter types (a formatted body
    has only the keys the formatter writes, and every image its detail)."""
    items = body["input"]
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    INPUT.validate_python(items if formatted else fixture_images_with_detail(items))
    TOOLS.validate_python(body.get("tools", []))
    if formatted:
        assert set(body) <= {"input", "instructions", "tools", "previous_response_id"}
    if "instructions" in body:
        assert isinstance(body["instructions"], str)


OWN = fixture_entries(NAME)
OWN_REQUESTS = [e for e in OWN if e["kind"] == "request"]
OTHER_REQUESTS = [
    e
    for e in fixture_entries("openai", "groq", "vllm", "ollama", "anthropic", "gemini")
    if e["kind"] == "request"
    or (
        e["kind"] == "adversarial"
        and e["file"].split("/")[-1].startswith("request_")
        and e["expected"]["behavior"] == "tolerate"
    )
]


@pytest.mark.parametrize("entry", OWN_REQUESTS, ids=[e["file"] for e in OWN_REQUESTS])
def test_own_request_fixtures_and_their_reformatting_validate(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    check_body(data, formatted=False)
    ms = P.parse_messages(data)
    check_body(P.convert(ms, P.parse_tools(data)).body)


@pytest.mark.parametrize("entry", OTHER_REQUESTS, ids=[e["file"] for e in OTHER_REQUESTS])
def test_every_other_providers_conversation_formats_to_a_valid_request(
    entry: dict[str, Any],
) -> None:
    source = get_provider(entry["provider"])
    data = load_fixture(entry)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LossWarning)
        ms = source.parse_messages(data)
        tools = source.parse_tools(data) if isinstance(data, dict) else []
    check_body(P.convert(ms, tools).body)


RESPONSES = [e for e in OWN if e["kind"] == "response"]


def recorded(entry: dict[str, Any]) -> bool:
    """A fixture copied from recorded traffic: the API sent it, whether or not the SDK's
    types (newer than the recording) accept it. They do not always: 2025 recordings have
    no ``usage.input_tokens_details.cache_write_tokens``, which the types now require,
    and a ``web_search_call`` announced ``in_progress`` has no ``action`` yet."""
    return "_recorded_" in entry["file"]


@pytest.mark.parametrize("entry", RESPONSES, ids=[e["file"] for e in RESPONSES])
def test_response_fixtures_are_sdk_responses_and_their_turns_go_back_valid(
    entry: dict[str, Any],
) -> None:
    data = load_fixture(entry)
    if not recorded(entry):
        Response.model_validate(data)
    r = P.parse_response(data)
    check_body(P.convert([Message.user("q"), r.message]).body)
    answered = [
        Message.user("q"),
        r.message,
        *(Message.tool_result(c.id, "ok") for c in r.tool_calls),
    ]
    check_body(P.convert(answered, previous_response_id=True).body)


STREAMS = [
    e
    for e in OWN
    if e["file"].endswith(".jsonl") and "reader" not in e["expected"] and not recorded(e)
]


@pytest.mark.parametrize("entry", STREAMS, ids=[e["file"] for e in STREAMS])
def test_stream_fixture_events_are_sdk_events(entry: dict[str, Any]) -> None:
    for event in load_fixture(entry):
        EVENT.validate_python(event)


def test_the_check_catches_a_malformed_body() -> None:
    from pydantic import ValidationError as PydanticError

    with pytest.raises(PydanticError):
        check_body({"input": [{"type": "function_call", "name": "f"}]})
    with pytest.raises(PydanticError):
        check_body({"input": [], "tools": [{"type": "function", "function": {"name": "f"}}]})


IMAGE: TypeAdapter[Any] = TypeAdapter(ResponseInputImageParam)
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"


@pytest.mark.parametrize(
    ("part", "detail"),
    [
        (ImagePart(url="https://example.com/a.png"), "auto"),
        (ImagePart.from_data_url(f"data:image/png;base64,{PNG}"), "auto"),
        (ImagePart(url="https://example.com/a.png", detail="low"), "low"),
        (ImagePart(url="https://example.com/a.png", detail="auto"), "auto"),
        (FilePart(file_id="file-img", media_type="image/png"), "auto"),
    ],
)
def test_every_image_is_sent_with_the_detail_the_sdk_type_requires(
    part: ImagePart | FilePart, detail: str
) -> None:
    body = P.convert([Message.user([TextPart("Look"), part])]).body
    [sent] = [p for p in body["input"][0]["content"] if p["type"] == "input_image"]
    assert sent["detail"] == detail
    IMAGE.validate_python(sent)
    with pytest.raises(PydanticValidationError):
        IMAGE.validate_python({k: v for k, v in sent.items() if k != "detail"})


@pytest.mark.parametrize(
    "image",
    [
        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "auto"},
        {"type": "input_image", "image_url": f"data:image/png;base64,{PNG}", "detail": "auto"},
        {"type": "input_image", "file_id": "file-img", "detail": "auto"},
        {"type": "input_image", "image_url": "https://example.com/a.png", "detail": "high"},
    ],
)
def test_a_parsed_detail_goes_back_as_it_came(image: dict[str, Any]) -> None:
    """``auto`` is read as no detail (the API's default: no Loss to a provider without
    details), and a part without a detail goes back as ``auto``."""
    body = {"input": [{"role": "user", "content": [{"type": "input_text", "text": "Look"}, image]}]}
    INPUT.validate_python(body["input"])
    [m] = P.parse_messages(body)
    [part] = [p for p in m.parts if not isinstance(p, TextPart)]
    if isinstance(part, ImagePart):
        assert part.detail == (None if image["detail"] == "auto" else image["detail"])
    assert P.convert([m]).body == body
    if image["detail"] == "auto":
        losses = get_provider("anthropic").convert([m]).losses
        assert not [loss for loss in losses if "detail" in f"{loss.path} {loss.what}"]
