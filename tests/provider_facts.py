"""Turn parsed messages and responses into the MANIFEST's fact shapes, for comparison."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from messages import ImagePart, InvalidToolCall, Message, ToolResultMessage
from messages.providers import ChatResponse


def message_facts(m: Message) -> dict[str, Any]:
    """The MANIFEST ``canonical_message`` facts of one message (core keys only)."""
    facts: dict[str, Any] = {
        "role": m.role.value,
        "text": m.text,
        "tool_calls": [
            {"id": c.id, "name": c.name, "arguments": _plain(c.arguments)} for c in m.tool_calls
        ],
        "tool_call_id": m.tool_call_id if isinstance(m, ToolResultMessage) else None,
        "is_error": m.is_error if isinstance(m, ToolResultMessage) else False,
    }
    if isinstance(m, ToolResultMessage):
        facts["tool_name"] = m.tool_name
    return facts


def images_facts(m: Message) -> list[dict[str, Any]]:
    """The ``images`` facts of one message."""
    out: list[dict[str, Any]] = []
    for p in m.parts:
        if isinstance(p, ImagePart):
            if p.data is not None:
                out.append({"kind": "base64", "media_type": p.media_type, "data": p.data})
            else:
                out.append({"kind": "url", "url": p.url, "media_type": p.media_type})
    return out


def compare_message(m: Message, expected: dict[str, Any], *, ids: bool = True) -> None:
    """Assert the facts of ``m`` match the MANIFEST's expected message.

    ``ids=False`` skips tool-call ids the wire did not carry (expected null):
    the parser generates stable ids for those.
    """
    got = message_facts(m)
    for key in ("role", "text", "tool_call_id", "is_error"):
        if key == "tool_call_id" and expected.get(key) is None and not ids:
            continue
        if key == "text" and "result_json" in expected:
            continue  # a structured result is carried as its JSON text (checked below)
        assert got[key] == expected.get(key, got[key]), (key, got[key], expected.get(key))
    if "result_json" in expected:
        assert result_json(m) == expected["result_json"]
    if "tool_name" in expected and expected["tool_name"] is not None:
        assert got.get("tool_name") == expected["tool_name"]
    if "cache" in expected:  # the message's cache hint: its canonical dict, or null
        assert (None if m.cache is None else m.cache.to_dict()) == expected["cache"]
    exp_calls = expected.get("tool_calls", [])
    assert len(got["tool_calls"]) == len(exp_calls)
    for g, e in zip(got["tool_calls"], exp_calls, strict=True):
        assert g["name"] == e["name"]
        assert g["arguments"] == e["arguments"]
        if e.get("id") is not None:
            assert g["id"] == e["id"]
        else:
            assert g["id"]  # generated
    if "invalid_tool_calls" in expected:
        compare_invalid(m.invalid_tool_calls, expected["invalid_tool_calls"])
    if "images" in expected:
        imgs = images_facts(m)
        assert len(imgs) == len(expected["images"])
        for g, e in zip(imgs, expected["images"], strict=True):
            assert g["kind"] == e["kind"]
            if e["kind"] == "url":
                assert g["url"] == e["url"]
            else:
                assert g["data"] == e["data"]
            if e.get("media_type") is not None:
                assert g["media_type"] == e["media_type"]
    if expected.get("reasoning"):
        got_r = m.reasoning
        assert len(got_r) == len(expected["reasoning"])
        for g, e in zip(got_r, expected["reasoning"], strict=True):
            assert g.redacted == e.get("redacted", False)
            if not g.redacted:
                assert g.text == e["text"]
            else:
                assert g.text == e.get("data", e.get("text"))
            assert g.signature == e.get("signature")


def compare_invalid(got: Sequence[InvalidToolCall], expected: Sequence[dict[str, Any]]) -> None:
    """Invalid calls: ``{id (null when the wire has none), name, raw_arguments}`` each, in order."""
    assert len(got) == len(expected), (got, expected)
    for g, e in zip(got, expected, strict=True):
        assert (g.name, g.raw_arguments) == (e["name"], e["raw_arguments"])
        if e.get("id") is not None:
            assert g.id == e["id"]
        assert g.id and g.error


def result_json(m: Message) -> Any:
    """The structured tool result a message carries as JSON text (None when not JSON)."""
    try:
        return json.loads(m.text)
    except ValueError:
        return None


def unknown_blocks(m: Message) -> list[dict[str, Any]]:
    """The ``{path, type}`` of every unknown wire block a parser kept in ``m.extras``.

    Parsers keep them as ``extras[<provider>]["unknown"]``, a list of
    ``{index, path, type, value}`` (``value`` is the block itself).
    """
    out: list[dict[str, Any]] = []
    for value in m.extras.values():
        if isinstance(value, dict):
            out.extend({"path": i["path"], "type": i["type"]} for i in value.get("unknown", ()))
    return out


def compare_messages(
    ms: Sequence[Message], expected: Sequence[dict[str, Any]], *, ids: bool = True
) -> None:
    """Assert a parsed conversation matches the MANIFEST's expected messages."""
    assert len(ms) == len(expected), ([m.role.value for m in ms], [e["role"] for e in expected])
    for m, e in zip(ms, expected, strict=True):
        compare_message(m, e, ids=ids)


def compare_response(r: ChatResponse, expected: dict[str, Any]) -> None:
    """Assert a parsed response (or finished stream) matches the MANIFEST facts."""
    if "text" in expected:
        assert r.text == expected["text"]
    if "text_length" in expected:
        assert len(r.text) == expected["text_length"]
    if "reasoning" in expected:
        assert r.reasoning == expected["reasoning"]
    if "tool_calls" in expected:
        assert len(r.tool_calls) == len(expected["tool_calls"]), (
            r.tool_calls,
            expected["tool_calls"],
        )
        for g, e in zip(r.tool_calls, expected["tool_calls"], strict=True):
            assert g.name == e["name"]
            assert _plain(g.arguments) == e["arguments"]
            if e.get("id") is not None:
                assert g.id == e["id"]
    if "invalid_tool_calls" in expected:
        compare_invalid(r.invalid_tool_calls, expected["invalid_tool_calls"])
    if "finish_reason" in expected:
        assert r.finish_reason.value == expected["finish_reason"]
    if "provider_finish_reason" in expected:
        assert r.provider_finish_reason == expected["provider_finish_reason"]
    if "usage" in expected:
        u = expected["usage"]
        if u is None:
            assert r.usage is None
        else:
            assert r.usage is not None
            assert r.usage.input_tokens == u["input_tokens"]
            assert r.usage.output_tokens == u["output_tokens"]
            assert r.usage.total_tokens == u["total_tokens"]
            assert r.message.metadata["usage"]["total_tokens"] == u["total_tokens"]
    if "refusal" in expected:
        assert r.refusal == expected["refusal"]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
