"""messages.mcp: MCP tools/call results and tools/list definitions, both ways."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AudioPart,
    FilePart,
    ImagePart,
    Message,
    TextPart,
    ToolCall,
    ToolResult,
)
from messages.errors import DecodeError, MessageError
from messages.mcp import (
    mcp_tools,
    to_mcp_result,
    to_mcp_tool,
    tool_definitions_from_mcp,
    tool_result_from_mcp,
)
from messages.providers import LossWarning, get_provider
from messages.tools import Toolbox, ToolDefinition
from tests.conftest import FIXTURES

MCP = FIXTURES / "mcp"


def fixture(name: str) -> Any:
    return json.loads((MCP / name).read_text(encoding="utf-8"))


def result_of(*blocks: str, **more: Any) -> dict[str, Any]:
    return {"content": [fixture(b) for b in blocks], **more}


def losses_of(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(*args, **kwargs)
    return value, [str(w.message) for w in caught if issubclass(w.category, LossWarning)]


# -- tools/call results ------------------------------------------------------------------------


def test_text_result_is_the_text() -> None:
    r, losses = losses_of(tool_result_from_mcp, fixture("call_text.json"), "call_1", "get_weather")
    assert r == ToolResult(
        "call_1", fixture("call_text.json")["content"][0]["text"], False, "get_weather"
    )
    assert losses == []


def test_is_error_is_kept() -> None:
    r = tool_result_from_mcp(fixture("call_error.json"), "call_2", "book")
    assert r.is_error is True
    assert r.text.startswith("Invalid departure date")


def test_structured_content_is_the_text_block_that_already_holds_it_written_compactly() -> None:
    body = fixture("call_structured.json")
    r, losses = losses_of(tool_result_from_mcp, body, "c", "get_weather_data")
    assert r.content == '{"temperature":22.5,"conditions":"Partly cloudy","humidity":65}'
    assert json.loads(body["content"][0]["text"]) == json.loads(r.text)  # the same object
    assert losses == []
    back = to_mcp_result(r)
    assert back["structuredContent"] == body["structuredContent"]
    assert back["content"] == [{"type": "text", "text": r.text}]


def _weather_turn(result: ToolResult) -> list[Message]:
    return [
        Message.user("Weather in Paris?"),
        Message.assistant(None, [ToolCall("c", "get_weather_data", {"city": "Paris"})]),
        result.to_message(),
    ]


def test_structured_content_goes_as_an_object_where_a_provider_takes_json() -> None:
    body = fixture("call_structured.json")
    ms = _weather_turn(tool_result_from_mcp(body, "c", "get_weather_data"))
    data = body["structuredContent"]
    bedrock = get_provider("bedrock").format_request(ms)
    assert bedrock["messages"][-1]["content"][0]["toolResult"]["content"] == [{"json": data}]
    gemini = get_provider("gemini").format_request(ms)
    (part,) = gemini["contents"][-1]["parts"]
    assert part["functionResponse"]["response"] == {"output": data}
    interactions = get_provider("gemini_interactions").format_request(ms)
    assert interactions["input"][-1]["result"] == data
    # the providers that take text get the JSON text
    openai = get_provider("openai").format_request(ms)
    assert openai["messages"][-1]["content"] == ms[-1].text
    # each reads its request back as the same text
    for name in ("bedrock", "gemini", "gemini_interactions"):
        p = get_provider(name)
        back = p.parse_messages(p.format_request(ms))
        assert back[-1].text == ms[-1].text, name


def test_text_that_is_not_compact_json_stays_text() -> None:
    ms = _weather_turn(ToolResult("c", '{"temperature": 22.5}'))
    bedrock = get_provider("bedrock").format_request(ms)
    assert bedrock["messages"][-1]["content"][0]["toolResult"]["content"] == [
        {"text": '{"temperature": 22.5}'}
    ]
    gemini = get_provider("gemini").format_request(ms)
    assert gemini["contents"][-1]["parts"][0]["functionResponse"]["response"] == {
        "output": '{"temperature": 22.5}'
    }


def _as_string(name: str, body: dict[str, Any]) -> None:
    """Turn the object result of ``body``'s last turn into the string that writes it."""
    if name == "bedrock":
        block = body["messages"][-1]["content"][0]["toolResult"]["content"][0]
        block["text"] = json.dumps(block.pop("json"), separators=(",", ":"))
    elif name == "gemini":
        response = body["contents"][-1]["parts"][0]["functionResponse"]["response"]
        response["output"] = json.dumps(response["output"], separators=(",", ":"))
    else:
        step = body["input"][-1]
        step["result"] = json.dumps(step["result"], separators=(",", ":"))


@pytest.mark.parametrize("name", ["bedrock", "gemini", "gemini_interactions"])
def test_a_string_result_read_from_a_provider_goes_back_as_a_string(name: str) -> None:
    p = get_provider(name)
    body = p.format_request(_weather_turn(ToolResult("c", '{"temperature":22.5}')))
    _as_string(name, body)  # the provider's own traffic: a string holding an object
    back = p.parse_messages(body)
    assert back[-1].text == '{"temperature":22.5}'
    assert p.format_request(back) == body


def test_structured_content_alone_becomes_the_first_text_part() -> None:
    body = result_of("block_image.json", structuredContent={"temperature": 22.5, "ok": True})
    r = tool_result_from_mcp(body, "c", on_loss="ignore")
    assert isinstance(r.content, tuple)
    first = r.content[0]
    assert isinstance(first, TextPart)
    assert json.loads(first.text) == {"temperature": 22.5, "ok": True}
    assert isinstance(r.content[1], ImagePart)
    assert to_mcp_result(r)["structuredContent"] == {"temperature": 22.5, "ok": True}


def test_every_content_kind_is_kept() -> None:
    body = result_of(
        "block_image.json", "block_audio.json", "block_resource_link.json", "block_resource.json"
    )
    r, losses = losses_of(tool_result_from_mcp, body, "c", "t")
    image, audio, link, resource = r.content
    assert image == ImagePart(data="base64-encoded-data", media_type="image/png")
    assert audio == AudioPart("base64-encoded-audio-data", "wav")
    assert isinstance(link, TextPart)
    assert "file:///project/src/main.rs" in link.text and "main.rs" in link.text
    assert resource == TextPart(fixture("block_resource.json")["resource"]["text"])
    # the image's annotations, the embedded resource's URI and annotations have no place
    assert len(losses) == 3
    assert any("content[0].annotations" in w for w in losses)
    assert any("content[3].resource.uri" in w for w in losses)


def test_blob_resources_become_media_or_file_parts() -> None:
    blocks = [
        {
            "type": "resource",
            "resource": {"uri": "file:///a.png", "mimeType": "image/png", "blob": "iVBO"},
        },
        {
            "type": "resource",
            "resource": {"uri": "file:///a.mp3", "mimeType": "audio/mpeg", "blob": "SUQz"},
        },
        {
            "type": "resource",
            "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": "JVBE"},
        },
    ]
    r = tool_result_from_mcp({"content": blocks}, "c", on_loss="ignore")
    assert r.content == (
        ImagePart(data="iVBO", media_type="image/png"),
        AudioPart("SUQz", "mp3"),
        FilePart(data="JVBE", filename="file:///r.pdf", media_type="application/pdf"),
    )
    back = to_mcp_result(r)["content"]
    assert back[1] == {"type": "audio", "data": "SUQz", "mimeType": "audio/mpeg"}
    assert back[2] == {"type": "resource", "resource": blocks[2]["resource"]}


def test_an_image_link_stays_an_image_by_url() -> None:
    link = {
        "type": "resource_link",
        "uri": "https://example.com/a.png",
        "name": "a.png",
        "mimeType": "image/png",
    }
    r, losses = losses_of(tool_result_from_mcp, {"content": [link]}, "c")
    assert r.content == (ImagePart(url="https://example.com/a.png", media_type="image/png"),)
    assert losses == ["mcp: content[0]: the link's name (not kept: the image is kept by URL)"]
    assert to_mcp_result(r)["content"] == [link]


def test_a_links_size_icons_and_keys_mcp_does_not_define_are_reported() -> None:
    link = {**fixture("block_resource_link.json"), "size": 2048, "icons": [], "x-extra": 1}
    r, losses = losses_of(tool_result_from_mcp, {"content": [link]}, "c")
    assert r.content.startswith("Resource link: main.rs <file:///project/src/main.rs>")
    assert losses == [
        "mcp: content[0]: the block's keys 'size', 'icons', 'x-extra' "
        "(not kept: a part has no place for them)"
    ]


def test_unknown_block_and_meta_are_reported_not_dropped_silently() -> None:
    body = {"content": [{"type": "text", "text": "hi"}, {"type": "hologram"}], "_meta": {"k": 1}}
    r, losses = losses_of(tool_result_from_mcp, body, "c")
    assert r.content == "hi"
    assert len(losses) == 2
    assert any("'hologram'" in w for w in losses)


def test_on_loss_ignore_and_raise() -> None:
    body = result_of("block_image.json")
    _, losses = losses_of(tool_result_from_mcp, body, "c", on_loss="ignore")
    assert losses == []
    from messages.errors import LossError

    with pytest.raises(LossError) as info:
        tool_result_from_mcp(body, "c", on_loss="raise")
    assert [loss.path for loss in info.value.losses] == ["content[0].annotations"]


def test_results_format_for_every_provider() -> None:
    body = result_of("block_image.json", "block_resource.json", structuredContent={"a": 1})
    message = tool_result_from_mcp(body, "call_1", "t", on_loss="ignore").to_message()
    from messages import Message

    call = Message.assistant(tool_calls=[ToolCall("call_1", "t", {})])
    for name in ("openai", "anthropic", "gemini", "openai_responses"):
        conversion = get_provider(name).convert([Message.user("go"), call, message])
        assert conversion.body


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ([], "$"),
        ({"content": "text"}, "content"),
        ({"content": [3]}, "content[0]"),
        ({"content": [{"type": "text"}]}, "content[0].text"),
        ({"content": [{"type": "image", "data": "x"}]}, "content[0].mimeType"),
        ({"content": [{"type": "resource", "resource": {"uri": "u"}}]}, "content[0].resource.blob"),
        ({"content": [], "isError": "yes"}, "isError"),
        ({"content": [], "structuredContent": [1]}, "structuredContent"),
    ],
)
def test_malformed_results_name_the_path(body: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        tool_result_from_mcp(body, "c")
    assert info.value.path == path


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
_blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "audio", "resource", "resource_link", "x"])},
    optional={
        "text": _json,
        "data": _json,
        "mimeType": st.sampled_from(["image/png", "audio/wav", "text/plain"]) | _json,
        "uri": _json,
        "name": _json,
        "resource": st.fixed_dictionaries(
            {}, optional={"uri": _json, "text": _json, "blob": _json, "mimeType": _json}
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "content": st.lists(_blocks, max_size=4) | _json,
            "isError": _json,
            "structuredContent": _json,
        },
    )
)
def test_fuzz_results_raise_only_decode_errors(body: dict[str, Any]) -> None:
    try:
        r = tool_result_from_mcp(body, "c", on_loss="ignore")
    except DecodeError as exc:
        assert "SECRET" not in str(exc)
    else:
        assert isinstance(r, ToolResult)
        to_mcp_result(r)


# -- tools/list ---------------------------------------------------------------------------------


def test_tools_list_result_and_its_tools_list() -> None:
    listing = fixture("tools_list.json")
    defs, losses = losses_of(tool_definitions_from_mcp, listing)
    (d,) = defs
    assert d.name == "get_weather"
    assert d.description == "Get current weather information for a location"
    assert d.parameters == listing["tools"][0]["inputSchema"]
    assert d.strict is False
    assert any("tools[0].icons" in w for w in losses) and any("tools[0].title" in w for w in losses)
    assert tool_definitions_from_mcp(listing["tools"], on_loss="ignore") == defs


def test_output_schema_is_reported_and_a_missing_description_is_the_title() -> None:
    tool = fixture("tool_output_schema.json")
    _, losses = losses_of(tool_definitions_from_mcp, [tool])
    assert any("outputSchema" in w for w in losses)
    del tool["description"], tool["outputSchema"]
    (d,), losses = losses_of(tool_definitions_from_mcp, [tool])
    assert d.description == "Weather Data Retriever"
    assert losses == []


def test_to_mcp_tool_round_trips() -> None:
    for name in ("tool_no_parameters.json", "tool_output_schema.json"):
        tool = fixture(name)
        tool.pop("outputSchema", None)
        tool.pop("title", None)
        (d,) = tool_definitions_from_mcp([tool])
        assert to_mcp_tool(d) == tool


def test_a_strict_definition_is_sent_closed() -> None:
    d = ToolDefinition("add", "Add", {"type": "object", "properties": {"a": {"type": "number"}}})
    assert to_mcp_tool(d)["inputSchema"]["additionalProperties"] is False


def test_a_dotted_name_is_reported_and_left_out() -> None:
    tools = [
        fixture("tool_no_parameters.json"),
        {**fixture("tool_no_parameters.json"), "name": "admin.tools.list"},
    ]
    defs, losses = losses_of(tool_definitions_from_mcp, tools)
    assert [d.name for d in defs] == ["get_current_time"]
    assert len(losses) == 1 and "'admin.tools.list'" in losses[0]


@pytest.mark.parametrize(
    ("listing", "path"),
    [
        ({"tools": 3}, "tools"),
        ({"tools": [None]}, "tools[0]"),
        ({"tools": [{"name": 1}]}, "tools[0].name"),
        ({"tools": [{"name": "a"}]}, "tools[0].inputSchema"),
        ({"tools": [{"name": "a", "inputSchema": {"type": "string"}}]}, "tools[0].inputSchema"),
    ],
)
def test_malformed_listings_name_the_path(listing: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        tool_definitions_from_mcp(listing)
    assert info.value.path.startswith(path)


@settings(max_examples=200, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "tools": st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "name": _json,
                        "description": _json,
                        "inputSchema": _json,
                        "title": _json,
                    },
                ),
                max_size=3,
            )
            | _json
        },
    )
)
def test_fuzz_listings_raise_only_decode_errors(listing: dict[str, Any]) -> None:
    try:
        tool_definitions_from_mcp(listing, on_loss="ignore")
    except MessageError as exc:
        assert isinstance(exc, DecodeError)


# -- a Toolbox of MCP tools ---------------------------------------------------------------------


def test_toolbox_runs_mcp_tools_through_the_session() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append((name, arguments))
        return result_of("block_audio.json", isError=True)

    toolbox = Toolbox(mcp_tools(fixture("tools_list.json"), call, on_loss="ignore"))
    assert [d.name for d in toolbox.definitions] == ["get_weather"]
    r = toolbox.run(ToolCall("call_7", "get_weather", {"location": "Paris"}))
    assert seen == [("get_weather", {"location": "Paris"})]
    assert r.tool_call_id == "call_7" and r.tool_name == "get_weather" and r.is_error
    assert r.content == (AudioPart("base64-encoded-audio-data", "wav"),)
    bad = toolbox.run(ToolCall("call_8", "get_weather", {"city": "Paris"}))
    assert bad.is_error and len(seen) == 1  # the schema is checked before the session is called


def test_toolbox_awaits_an_async_session() -> None:
    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0)
        body: dict[str, Any] = fixture("call_structured.json")
        return body

    toolbox = Toolbox(mcp_tools([fixture("tool_output_schema.json")], call, on_loss="ignore"))
    r = asyncio.run(toolbox.arun(ToolCall("c", "get_weather_data", {"location": "Oslo"})))
    assert json.loads(r.text)["humidity"] == 65 and not r.is_error


def test_a_text_block_that_differs_from_structured_content_in_json_is_kept() -> None:
    # 1 == True in Python, not in JSON: the server's text is not rewritten
    body = {"content": [{"type": "text", "text": '{"a":1}'}], "structuredContent": {"a": True}}
    r = tool_result_from_mcp(body, "c1", on_loss="ignore")
    assert [p.text for p in r.content if isinstance(p, TextPart)] == ['{"a":true}', '{"a":1}']


def test_text_nested_deeper_than_json_can_read_is_only_text() -> None:
    deep = "[" * 200_000
    body = {"content": [{"type": "text", "text": deep}], "structuredContent": {"a": 1}}
    r = tool_result_from_mcp(body, "c1", on_loss="ignore")
    assert [p.text for p in r.content if isinstance(p, TextPart)] == ['{"a":1}', deep]
    assert "structuredContent" not in to_mcp_result(ToolResult("c", deep))
