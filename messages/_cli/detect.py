"""``convert`` without ``--from``: which format the input is in, from its keys.

Each key that only one format writes is a vote: a request body's top-level keys
(Anthropic's ``system``, Gemini's ``contents``, the Responses ``input``, Ollama's
``options``, OpenRouter's ``provider``...), the shape of its tool definitions, and
the keys and block types of its messages (Anthropic ``tool_use`` blocks, Gemini
``parts``, Responses items, envelope ``schema`` / ``payload``, the canonical
``created_at`` / ``metadata`` / ``extras``). One format voted for is the answer;
votes for two are no answer (the canonical reading then names the key it cannot
carry). A request body whose messages are plain chat-completions messages fits
``openai`` and every server that speaks its dialect (groq, vllm, deepseek,
openrouter, mistral): it is read as ``openai``, and the caller says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, Final

from .._json import loads
from ..errors import MessageError
from .formats import FORMATS
from .source import Document, Lines
from .terminal import warn

__all__ = ["choose", "detect"]

_CANONICAL: Final = "canonical"

#: Top-level request keys that one provider's request body has.
_TOP_KEYS: Final[dict[str, str]] = {
    "anthropic_version": "anthropic",
    "stop_sequences": "anthropic",
    "contents": "gemini",
    "systemInstruction": "gemini",
    "generationConfig": "gemini",
    "safetySettings": "gemini",
    "modelId": "bedrock",
    "inferenceConfig": "bedrock",
    "additionalModelRequestFields": "bedrock",
    "guardrailConfig": "bedrock",
    "promptVariables": "bedrock",
    "cachedContent": "gemini",
    "instructions": "openai_responses",
    "previous_response_id": "openai_responses",
    "max_output_tokens": "openai_responses",
    "keep_alive": "ollama",
    "options": "ollama",
    "think": "ollama",
    "provider": "openrouter",
    "models": "openrouter",
    "transforms": "openrouter",
    "plugins": "openrouter",
    "safe_prompt": "mistral",
    "random_seed": "mistral",
    "prompt_mode": "mistral",
    "documents": "cohere",
    "citation_options": "cohere",
    "safety_mode": "cohere",
    "strict_tools": "cohere",
    "previous_interaction_id": "gemini_interactions",
    "reasoning_format": "groq",
    "search_settings": "groq",
    "chat_template_kwargs": "vllm",
    "guided_json": "vllm",
    "guided_regex": "vllm",
    "guided_choice": "vllm",
    "guided_grammar": "vllm",
    "gen_ai.system_instructions": "otel",
    "gen_ai.input.messages": "otel",
    "gen_ai.output.messages": "otel",
    "gen_ai.tool.definitions": "otel",
}

#: Top-level keys of a chat-completions request (which a canonical document has not).
_CHAT_KEYS: Final = frozenset(
    (
        "model",
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "stream",
        "stream_options",
        "tools",
        "tool_choice",
        "functions",
        "function_call",
        "parallel_tool_calls",
        "response_format",
        "stop",
        "n",
        "seed",
        "reasoning_effort",
    )
)

#: Message keys that only the canonical dicts (``Message.to_dict``) have.
_CANONICAL_KEYS: Final = frozenset(
    ("created_at", "metadata", "extras", "is_error", "invalid_tool_calls", "cache")
)

#: Message keys that one provider's messages have.
_MESSAGE_KEYS: Final[dict[str, str]] = {
    "reasoning_details": "openrouter",
    "tool_plan": "cohere",
    "images": "ollama",
    "thinking": "ollama",
}

#: Content block types that one format's messages have.
_BLOCK_TYPES: Final[dict[str, str]] = {
    "tool_use": "anthropic",
    "tool_result": "anthropic",
    "redacted_thinking": "anthropic",
    "server_tool_use": "anthropic",
    "input_text": "openai_responses",
    "output_text": "openai_responses",
    "input_image": "openai_responses",
    "input_file": "openai_responses",
    "reasoning": "canonical",
}

#: The keys of Bedrock Converse content blocks (which have no ``type``) besides ``text``.
_BEDROCK_BLOCKS: Final = frozenset(
    (
        "toolUse",
        "toolResult",
        "reasoningContent",
        "cachePoint",
        "guardContent",
        "image",
        "document",
        "video",
        "citationsContent",
    )
)

#: ``type`` of an input item that is not a role message, and the format it belongs to.
_ITEM_TYPES: Final[dict[str, str]] = {
    "message": "openai_responses",
    "function_call_output": "openai_responses",
    "reasoning": "openai_responses",
    "custom_tool_call": "openai_responses",
    "user_input": "gemini_interactions",
    "model_output": "gemini_interactions",
    "thought": "gemini_interactions",
    "function_result": "gemini_interactions",
    "google_search_call": "gemini_interactions",
    "google_search_result": "gemini_interactions",
    "code_execution_call": "gemini_interactions",
    "code_execution_result": "gemini_interactions",
}

#: Content types an Interactions input may hold on their own (not in a turn or step).
_INTERACTION_CONTENT: Final = frozenset(("text", "image", "audio", "video", "document"))

#: Providers whose request bodies hold no ``messages`` (a body with both is no answer).
_NO_MESSAGES: Final = frozenset(("gemini", "openai_responses"))

_ENVELOPE_SCHEMA: Final = "agents-api.message"

#: How many messages are looked at: a format shows itself in its first turns.
_LOOK: Final = 64


def detect(value: Any) -> str | None:
    """The format of a decoded JSON input: ``canonical``, ``envelope``, a provider name,
    or None when its keys do not say (or say two things).

    ``value`` is a request body, a list of messages, or one message. ``openai`` is
    also the answer for a request body of plain chat-completions messages, which
    other providers read as well.
    """
    body: dict[str, Any] = value if type(value) is dict and "role" not in value else {}
    items = _items(value, body)
    votes = _body_votes(body)
    for item in items[:_LOOK]:
        votes.update(_message_votes(item))
    votes.discard("")
    formats = votes - {"canonical", "envelope"}
    if not formats and "input" in body:
        formats = {"openai_responses"}  # an input alone: the Responses API's
    if formats:
        if len(formats) > 1 or ("messages" in body and formats <= _NO_MESSAGES):
            return None  # two formats' keys, or messages beside a body that has none
        return formats.pop()
    if len(votes) == 1:
        return votes.pop()
    if votes or "messages" not in body:
        return None
    return "openai" if any(k in _CHAT_KEYS for k in body) else None


def _items(value: Any, body: dict[str, Any]) -> list[Any]:
    """The messages (or input items, or contents) of an input."""
    if not body:
        value = [value] if type(value) is dict else value
        return value if type(value) is list else []
    for key in ("messages", "input", "contents", "gen_ai.input.messages"):
        found = body.get(key)
        if type(found) is list:
            return found
    return []


def _body_votes(body: dict[str, Any]) -> set[str]:
    """The formats a request body's top-level keys and tool definitions belong to."""
    votes = {_TOP_KEYS[k] for k in body if k in _TOP_KEYS}
    if "system" in body:  # Anthropic's: a string or typed blocks; Bedrock's: {"text"} blocks
        system = body["system"]
        typed = type(system) is not list or any(
            type(b) is dict and "type" in b for b in system[:_LOOK]
        )
        votes.add("anthropic" if typed else "bedrock")
    config = body.get("toolConfig")
    if config is not None:  # Bedrock's holds the tools, Gemini's the calling mode
        votes.add("bedrock" if type(config) is dict and "tools" in config else "gemini")
    system = body.get("system_instruction")
    if system is not None:  # the Interactions API's is a string, generateContent's content
        votes.add("gemini_interactions" if isinstance(system, str) else "gemini")
    tools = body.get("tools")
    if type(tools) is list:
        votes.update(_tool_vote(t) for t in tools[:_LOOK])
    return votes


def _tool_vote(tool: Any) -> str:
    """The format a tool definition's shape belongs to ("" when it says nothing)."""
    if type(tool) is not dict:
        return ""
    if "input_schema" in tool:
        return "anthropic"
    if "functionDeclarations" in tool or "function_declarations" in tool:
        return "gemini"
    return ""  # the Responses and Interactions shape is one: their input tells


def _message_votes(item: Any) -> Iterable[str]:
    """The formats one message (or input item) has keys of."""
    if type(item) is not dict:
        return ()
    if item.get("schema") == _ENVELOPE_SCHEMA or "payload" in item:
        return ("envelope",)
    kind = item.get("type")
    if not isinstance(kind, str):
        kind = None
    if kind in _ITEM_TYPES:
        return (_ITEM_TYPES[kind],)
    if "role" not in item and kind in _INTERACTION_CONTENT:
        return ("gemini_interactions",)
    if item.get("role") == "model" and "content" in item:  # a launch-era Interactions turn
        return ("gemini_interactions",)
    votes = [_MESSAGE_KEYS[k] for k in item if k in _MESSAGE_KEYS]
    if "parts" in item:
        votes.append(_parts_vote(item["parts"]))
    votes += _call_votes(item.get("tool_calls"))
    if any(k in _CANONICAL_KEYS for k in item):
        votes.append("canonical")
    content = item.get("content")
    if type(content) is list:
        for block in content[:_LOOK]:
            if type(block) is dict:
                votes.append(_block_vote(block))
    return votes


def _parts_vote(parts: Any) -> str:
    """OpenTelemetry's message parts are typed (``{"type": "text", "content"}``), Gemini's
    are named by their one key (``{"text"}``)."""
    typed = type(parts) is list and any(type(p) is dict and "type" in p for p in parts[:_LOOK])
    return "otel" if typed else "gemini"


def _block_vote(block: dict[str, Any]) -> str:
    """The format a content block belongs to ("" when it says nothing)."""
    if "type" not in block:  # Bedrock Converse names a block by its one key
        return "bedrock" if any(k in _BEDROCK_BLOCKS for k in block) else ""
    kind = block.get("type")
    if kind == "thinking":  # Anthropic's is signed, Mistral's holds chunks
        if "signature" in block:
            return "anthropic"
        return "mistral" if type(block.get("thinking")) is list else ""
    if kind in ("image", "document"):  # Anthropic's have a source, Cohere's a document
        return "anthropic" if "source" in block else "cohere" if "document" in block else ""
    return _BLOCK_TYPES.get(kind, "") if isinstance(kind, str) else ""


def _call_votes(calls: Any) -> list[str]:
    """Ollama's tool calls carry their arguments as an object, not as JSON text."""
    if type(calls) is not list:
        return []
    for call in calls[:_LOOK]:
        function = call.get("function") if type(call) is dict else None
        if type(function) is dict and type(function.get("arguments")) is dict:
            return ["ollama"]
    return []


def choose(source: Document | Lines) -> str:
    """The format ``convert`` reads ``source`` in when ``--from`` is not given: the one
    ``detect`` finds (said on stderr), else ``canonical``. JSON Lines are judged by
    their first lines."""
    if isinstance(source, Document):
        value = source.value
    else:
        head = list(itertools.islice(source.rows, _LOOK))
        source.rows = itertools.chain(head, source.rows)
        value = []
        for _, raw in head:
            try:
                value.append(loads(raw))
            except MessageError:
                break  # decoding says what is wrong with the line
    found = detect(value)
    if found is None or found == _CANONICAL or found not in FORMATS:
        return _CANONICAL
    also = ""
    if found == "openai":
        also = (
            ": plain chat-completions messages, which groq, vllm, deepseek, openrouter, "
            "mistral, ollama and cohere read too; --from chooses"
        )
    warn(f"convert: reading the input as {found} (detected from its keys{also})")
    return found
