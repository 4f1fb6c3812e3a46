"""Canonical messages to an Interactions request: ``{"input": [steps], "system_instruction"?}``.

Rules (each that loses something is a Loss):

* System and developer messages become ``system_instruction`` (a string; several are
  joined by a blank line, a Loss each; one after the conversation started is moved
  there, a Loss). The Interactions API takes ``system_instruction`` on every request,
  continued or not.
* A user message is a ``user_input`` step (text, image, audio, document and video
  items; see ``_content``). A user message read from a string ``input`` goes back as
  that string when it is the whole input.
* An assistant turn is its steps: its reasoning as ``thought`` steps (``signature``,
  ``summary``), its text in ``model_output`` steps, its calls as ``function_call``
  steps (``id``, ``name``, ``arguments``), in the order they came in (``layout``), with
  the steps this package does not model (built-in tool calls and results) verbatim.
  Reasoning goes back only to the provider that produced it (this tag); from any
  other it is a Loss, as is another provider's state. An empty turn is not sent
  (a Loss).
* A tool result is a ``function_result`` step (``call_id``, ``name``, ``result`` as a
  string, a list of content items or the object it was read as, ``is_error``). A call
  left without a result before the next user or assistant turn gets an error result
  (a Loss); a result that answers no call of the turn before it is dropped (a Loss).
* ``previous_interaction_id`` (server-side state): only the messages after the stored
  interaction's turn are sent, with its id.
* Message names and cache hints have no field (a Loss: the API caches implicitly).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from ..._frozen import EMPTY, thaw
from ..._kinds import ASSISTANT, DEVELOPER, SYSTEM, TOOL_CALL, TOOL_RESULT, USER, kind_or_none
from ..._message import AssistantMessage, Message, ToolResultMessage, UserMessage
from ..._part_codec import object_text
from ..._parts import ContentPart, ReasoningPart, TextPart
from ..._repair import UNANSWERED_TEXT
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import ValidationError, ident
from .._base import DROP_OTHER_REASONING, Loss, Losses, foreign_state_losses, kind_at, plain_dict
from .._cache_hints import hint_loss, no_breakpoints
from .._json_results import json_object_of
from ._content import format_part
from ._tools import format_tools
from ._turns import default_layout
from ._wire import (
    INPUT,
    INTERACTION_ID,
    LAYOUT,
    OUTPUT_KEYS,
    PREVIOUS,
    RESULT,
    STEP,
    SUMMARIES,
    UNKNOWN,
    is_provider_key,
    kept_keys,
    kept_list,
    own_state,
)

if TYPE_CHECKING:
    from ...tools import ToolDefinition

__all__ = ["format_body"]

CACHE_RULE: Final = no_breakpoints("gemini_interactions", "caching is implicit")
_NOT_PAIRED: Final = "dropped: the API rejects a function_result without its function_call"


def format_body(
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition | Mapping[str, Any]],
    tag: str,
    previous: str | bool | None = None,
) -> tuple[dict[str, Any], list[Loss]]:
    """The request body for ``messages`` and every loss."""
    f = Formatter(tag)
    body: dict[str, Any] = {}
    found = _continued(messages, tag, previous)
    start = 0 if found is None else found[0] + 1
    for i in range(start):
        if kind_or_none(messages[i]) in (SYSTEM, DEVELOPER):
            f.message(messages[i], i)  # the system instruction is sent on every request
    if found is not None:
        body[PREVIOUS] = found[1]
        f.continue_after(messages, found[0])
    elif previous is None:
        kept = _kept_previous(messages, tag)
        if kept is not None:
            body[PREVIOUS] = kept
            f.started, f.open_any = True, True
    for i in range(start, len(messages)):
        f.message(messages[i], i)
    calls = f.open_calls
    if calls is not None and f.answered and len(f.answered) < len(calls):
        f.answer_pending()  # a last turn with some results: the rest are answered
    if f.system:
        body["system_instruction"] = "\n\n".join(f.system)
    body["input"] = f.out
    if len(f.out) == 1 and f.out[0] is f.string_input:
        body["input"] = _loose_input(f.out[0], f.input_shape)
    if tools:
        body["tools"] = format_tools(tools, f.losses)
    return body, f.losses.items


def _loose_input(step: dict[str, Any], shape: Any) -> Any:
    """A lone user turn read from a string, a content item or a content list, as it was."""
    content = step["content"]
    if shape is True:
        return content[0]["text"]
    return content[0] if shape == "item" and len(content) == 1 else content


def _kept_previous(messages: Sequence[Message], tag: str) -> str | None:
    """The interaction an imported request continued (kept on its first message)."""
    for m in messages:
        if kind_or_none(m) not in (SYSTEM, DEVELOPER):
            kept = own_state(m.extras, tag).get(PREVIOUS)
            return kept if isinstance(kept, str) and kept else None
    return None


def _continued(
    messages: Sequence[Message], tag: str, wanted: str | bool | None
) -> tuple[int, str] | None:
    """The position and id of the stored interaction to continue from (None: replay all)."""
    if wanted is None or wanted is False:
        return None
    if not isinstance(wanted, (str, bool)):
        raise ValidationError(
            f"expected an interaction id or True, got {type(wanted).__name__}",
            "previous_interaction_id",
        )
    for k in range(len(messages) - 1, -1, -1):
        iid = own_state(messages[k].extras, tag).get(INTERACTION_ID)
        if isinstance(iid, str) and (wanted is True or iid == wanted):
            return k, iid
    if wanted is True:
        return None
    raise ValidationError(
        f"previous_interaction_id {ident(wanted)} is not an interaction parsed into these messages",
        "previous_interaction_id",
    )


class Formatter:
    """One request being formatted: the steps, the system instruction and the losses."""

    __slots__ = (
        "answered",
        "input_shape",
        "losses",
        "open_any",
        "open_at",
        "open_calls",
        "out",
        "started",
        "string_input",
        "system",
        "tag",
    )

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.losses = Losses()
        self.out: list[dict[str, Any]] = []
        self.system: list[str] = []
        self.started = False  # a user or assistant message was met
        self.open_calls: Sequence[ToolCall | InvalidToolCall] | None = None
        self.open_at = 0
        self.answered: list[str] = []
        self.string_input: dict[str, Any] | None = None
        self.input_shape: Any = None
        self.open_any = False  # results answer the calls of a stored interaction

    def continue_after(self, messages: Sequence[Message], k: int) -> None:
        """Continue from the stored interaction of ``messages[k]``: its calls are open."""
        self.started = True
        stored = messages[k]
        self.open([*stored.tool_calls, *stored.invalid_tool_calls], k)

    def own(self, m: Message, i: int) -> Mapping[str, Any]:
        """This tag's state on ``m``; other providers' state, a name and a hint are losses."""
        if m.name is not None:
            self.losses.add(f"messages[{i}].name", "message name", "dropped: steps have no name")
        if m.cache is not None:
            hint_loss(self.losses, i, CACHE_RULE)
        if not m.extras:
            return EMPTY
        for key, value in m.extras.items():
            if key != self.tag and isinstance(value, Mapping) and is_provider_key(key):
                foreign_state_losses(key, value, f"messages[{i}]", self.losses)
        return own_state(m.extras, self.tag)

    # -- tool pairing -------------------------------------------------------------

    def open(self, calls: Sequence[ToolCall | InvalidToolCall], i: int) -> None:
        self.open_calls, self.open_at, self.answered = calls or None, i, []

    def close_turn(self) -> None:
        """Before a user or assistant turn: each call left without a result is answered."""
        self.open_any = False
        calls = self.open_calls
        if calls is not None and len(self.answered) < len(calls):
            self.answer_pending()
        self.open_calls = None

    def answer_pending(self) -> None:
        rule = "answered with an error result: the API requires a result for every call"
        for k, call in enumerate(self.open_calls or ()):
            if call.id in self.answered:
                continue
            step: dict[str, Any] = {"type": "function_result", "call_id": call.id}
            if call.name:
                step["name"] = call.name
            step["result"] = UNANSWERED_TEXT
            step["is_error"] = True
            self.out.append(step)
            self.losses.add(
                f"messages[{self.open_at}].tool_calls[{k}]", "unanswered tool call", rule
            )
        self.open_calls = None

    # -- one writer per message kind ----------------------------------------------

    def message(self, m: Message, i: int) -> None:
        """Write one message."""
        kind = kind_at(m, i)
        own = self.own(m, i)
        _WRITERS[kind](self, m, i, own)

    def instruction(self, m: Message, i: int, own: Mapping[str, Any]) -> None:
        """A system or developer message: part of ``system_instruction``."""
        if self.started:
            rule = "moved to system_instruction: steps have no system role"
            self.losses.add(f"messages[{i}]", "system message after the conversation started", rule)
        elif self.system:
            rule = "joined to the system_instruction before it with a blank line"
            self.losses.add(f"messages[{i}]", "second system message", rule)
        self.system.append(m.text)

    def user(self, m: UserMessage, i: int, own: Mapping[str, Any]) -> None:
        self.close_turn()
        self.started = True
        c = m.content
        items = self.items(() if isinstance(c, str) else c, i, own, "content")
        if isinstance(c, str):
            items.insert(0, {"type": "text", "text": c})
        elif not items:
            items.append({"type": "text", "text": ""})
        step: dict[str, Any] = {"type": "user_input", "content": items}
        self.out.append(step)
        shape = own.get(INPUT) if own else None
        if (shape is True and isinstance(c, str)) or shape in ("item", "content"):
            self.string_input, self.input_shape = step, shape

    def assistant(self, m: AssistantMessage, i: int, own: Mapping[str, Any]) -> None:
        self.close_turn()
        self.started = True
        steps = turn_steps(m, i, own, self)
        if not steps:
            rule = "dropped: an empty model turn is not sent"
            self.losses.add(f"messages[{i}]", "empty assistant message", rule)
        self.out.extend(steps)
        calls: list[ToolCall | InvalidToolCall] = [*m.tool_calls, *m.invalid_tool_calls]
        if calls:
            self.open(calls, i)

    def tool_result(self, m: ToolResultMessage, i: int, own: Mapping[str, Any]) -> None:
        calls = self.open_calls
        call_id = m.tool_call_id
        # with open_any, a result answers a call of the stored interaction continued
        unpaired = calls is None or call_id in self.answered or all(c.id != call_id for c in calls)
        if unpaired and not self.open_any:
            self.losses.add(f"messages[{i}]", "tool result that answers no open call", _NOT_PAIRED)
            return
        self.answered.append(call_id)
        step: dict[str, Any] = {"type": "function_result", "call_id": call_id}
        if m.tool_name is not None:
            step["name"] = m.tool_name
        step["result"] = self.result(m, i, own)
        if m.is_error:
            step["is_error"] = True
        kept = own.get(STEP)
        if isinstance(kept, Mapping):
            step.update(thaw(kept))
        self.out.append(step)

    def result(self, m: ToolResultMessage, i: int, own: Mapping[str, Any]) -> Any:
        c = m.content
        if isinstance(c, str):
            kept = own.get(RESULT)
            if kept == "object":
                value = object_text(c)
                if value is not None:
                    return thaw(value)
            elif kept is None and not m.is_error:  # a JSON object goes as one (_json_results)
                structured = json_object_of(c)
                if structured is not None:
                    return structured
            return c
        return self.items(c, i, own, "content")

    # -- content items ------------------------------------------------------------

    def items(
        self, parts: Sequence[ContentPart], i: int, own: Mapping[str, Any], field: str
    ) -> list[dict[str, Any]]:
        """The content items of ``parts`` (kept keys and unknown items put back)."""
        keys = kept_keys(own) if own else {}
        out: list[dict[str, Any]] = []
        for j, p in enumerate(parts):
            where = f"messages[{i}].{field}[{j}]"
            item = format_part(p, where, self.losses)
            if item is None:
                self.losses.add(where, f"{type(p).__name__} in a {field}", "dropped")
                continue
            item.update(keys.get(j, {}))
            out.append(item)
        for entry in kept_list(own, UNKNOWN) if own else ():
            if isinstance(entry, Mapping) and type(entry.get("index")) is int:
                value = entry.get("value")
                if isinstance(value, Mapping):
                    out.insert(min(entry["index"], len(out)), thaw(value))
        return out


# -- an assistant turn ------------------------------------------------------------------


def turn_steps(m: AssistantMessage, i: int, own: Mapping[str, Any], f: Formatter) -> list[Any]:
    """The steps of an assistant turn, in the layout they came in."""
    parts = m.parts
    calls, invalid = m.tool_calls, m.invalid_tool_calls
    unknown = [thaw(e["value"]) for e in kept_list(own, UNKNOWN) if _entry(e)] if own else []
    layout = _layout(own, parts, len(calls), len(invalid), len(unknown))
    writer = _Turn(m, i, own, f, unknown)
    for letter in layout:
        writer.step(letter)
    return writer.out


def _entry(e: Any) -> bool:
    return isinstance(e, Mapping) and isinstance(e.get("value"), Mapping)


def _layout(
    own: Mapping[str, Any], parts: Sequence[ContentPart], calls: int, bad: int, kept: int
) -> str:
    """The kept layout when it fits the message, else the default one (kept steps last)."""
    default = default_layout(parts, calls, bad)
    layout = own.get(LAYOUT) if own else None
    if type(layout) is str and layout.count("c") == calls and layout.count("x") == bad:
        letters = "".join(ch for ch in layout if ch in "to")
        if letters == default[: len(parts)] and layout.count("u") + layout.count("m") == kept:
            return layout
    return default + "u" * kept


class _Turn:
    """Writes the steps of one assistant turn, letter by letter of its layout."""

    __slots__ = (
        "calls",
        "f",
        "i",
        "keys",
        "m",
        "next",
        "out",
        "output",
        "output_keys",
        "outputs",
        "summaries",
        "unknown",
    )

    def __init__(
        self, m: AssistantMessage, i: int, own: Mapping[str, Any], f: Formatter, unknown: list[Any]
    ) -> None:
        self.m, self.i, self.f = m, i, f
        self.keys = kept_keys(own) if own else {}
        self.summaries = _indexed(own, SUMMARIES, "summary")
        self.unknown = unknown
        self.output_keys = _indexed(own, OUTPUT_KEYS, "keys")
        self.outputs = 0  # model_output steps written
        self.out: list[Any] = []
        self.output: list[Any] | None = None  # the content of the open model_output step
        self.next = {"p": 0, "c": 0, "x": 0, "u": 0}
        self.calls: list[Any] = []

    def take(self, key: str) -> int:
        n = self.next[key]
        self.next[key] = n + 1
        return n

    def step(self, letter: str) -> None:
        if letter in {"o", "m"}:
            if self.output is None:
                self.output = []
                opened: dict[str, Any] = {"type": "model_output", "content": self.output}
                opened.update(self.output_keys.get(self.outputs, {}))
                self.outputs += 1
                self.out.append(opened)
            if letter == "o":
                j = self.take("p")
                p = self.m.parts[j]
                item = {"type": "text", "text": p.text if isinstance(p, TextPart) else ""}
                item.update(self.keys.get(j, {}))
                self.output.append(item)
            else:
                self.output.append(self.unknown[self.take("u")])
            return
        self.output = None
        if letter == "t":
            j = self.take("p")
            step = self.thought(self.m.parts[j], j)
        elif letter == "c":
            k = self.take("c")
            step = self.call(self.m.tool_calls[k], k)
        elif letter == "x":
            k = self.take("x")
            step = self.invalid(self.m.invalid_tool_calls[k], len(self.m.tool_calls) + k)
        elif letter == "u":
            step = self.unknown[self.take("u")]
        else:
            return
        if step is not None:
            self.out.append(step)

    def thought(self, p: ContentPart, j: int) -> dict[str, Any] | None:
        """A ``thought`` step for this provider's reasoning; another's is a Loss."""
        where = f"messages[{self.i}].content[{j}]"
        if not isinstance(p, ReasoningPart):
            return None
        if p.provider != self.f.tag or p.redacted:
            who = p.provider or "an unnamed provider"
            self.f.losses.add(where, f"reasoning from {who}", DROP_OTHER_REASONING)
            return None
        step: dict[str, Any] = {"type": "thought"}
        if p.signature is not None:
            step["signature"] = p.signature
        summary = self.summaries.get(j)
        if isinstance(summary, list) and _summary_text(summary) == p.text:
            step["summary"] = summary
        elif p.text:
            step["summary"] = [{"type": "text", "text": p.text}]
        step.update(self.keys.get(j, {}))
        return step

    def call(self, c: ToolCall, k: int) -> dict[str, Any]:
        step: dict[str, Any] = {"type": "function_call", "id": c.id, "name": c.name}
        step["arguments"] = plain_dict(c.arguments)
        self.call_state(c.extras, step, k)
        return step

    def invalid(self, c: InvalidToolCall, k: int) -> dict[str, Any]:
        where = f"messages[{self.i}].tool_calls[{k}]"
        args = object_text(c.raw_arguments)
        if args is None:
            rule = "sent with arguments {}: the API takes an object"
            self.f.losses.add(f"{where}.arguments", "invalid tool call arguments", rule)
        name = c.name
        if not name:
            rule = "sent with the name 'unknown': the API needs one"
            self.f.losses.add(f"{where}.name", "missing tool call name", rule)
            name = "unknown"
        step: dict[str, Any] = {"type": "function_call", "id": c.id, "name": name}
        step["arguments"] = {} if args is None else thaw(args)
        self.call_state(c.extras, step, k)
        return step

    def call_state(self, extras: Mapping[str, Any], step: dict[str, Any], k: int) -> None:
        """The step keys this provider kept on a call; another provider's state is a Loss."""
        if not extras:
            return
        for key in extras:
            if key != self.f.tag and is_provider_key(key):
                self.f.losses.add(
                    f"messages[{self.i}].tool_calls[{k}].extras.{key}",
                    f"{key} state of the tool call",
                    f"dropped: only re-sent to {key}",
                )
        kept = own_state(extras, self.f.tag).get(STEP)
        if isinstance(kept, Mapping):
            step.update(thaw(kept))


def _indexed(own: Mapping[str, Any], key: str, field: str) -> dict[int, Any]:
    """The ``[{index, <field>}]`` list kept under ``key``, thawed, by index."""
    return {
        e["index"]: thaw(e[field])
        for e in kept_list(own, key)
        if isinstance(e, Mapping) and type(e.get("index")) is int and field in e
    }


def _summary_text(summary: list[Any]) -> str:
    return "".join(
        item["text"]
        for item in summary
        if isinstance(item, Mapping)
        and item.get("type") == "text"
        and type(item.get("text")) is str
    )


_Writer = Callable[[Formatter, Any, int, Mapping[str, Any]], None]
_WRITERS: Final[dict[int, _Writer]] = {
    SYSTEM: Formatter.instruction,
    DEVELOPER: Formatter.instruction,
    USER: Formatter.user,
    ASSISTANT: Formatter.assistant,
    TOOL_CALL: Formatter.assistant,
    TOOL_RESULT: Formatter.tool_result,
}
