"""The Gemini Interactions API (``POST /v1beta/interactions``), both directions.

* ``format_request`` gives ``{"input": [steps], "system_instruction"?, "tools"?}``
  (see ``_format`` for the rules, ``_content`` for content items, ``_tools`` for tool
  definitions); ``previous_interaction_id=True`` (or an interaction id) sends only what
  follows a stored interaction, with its id.
* ``parse_response`` reads an Interaction object (``steps``, or the launch-era
  ``outputs``; ``_parse``); ``stream()`` takes the parsed payload of each SSE event
  (``step.*`` and the launch-era ``content.*`` events; ``_stream``);
  ``parse_messages`` reads a request body (``input`` as a string, content, steps or
  launch-era turns, and ``system_instruction``; ``_turns``).
* ``thought`` steps are ReasoningParts (summary text; ``signature`` the signature,
  ``provider`` this tag), sent back only to this provider, in their original
  position among the turn's steps (``layout``); ``function_call`` steps are tool
  calls and ``function_result`` steps tool results (string, content list or object
  results); built-in tool steps (Google Search, code execution, URL context, MCP,
  file search...) are kept verbatim and sent back only to this provider, a Loss
  elsewhere. What is kept where: ``_wire``.

When to use ``previous_interaction_id``: when interactions are stored (``store`` left
true) and the conversation continues on the same endpoint, it sends only the new
steps (results, the user's next message) and the server supplies the rest, thoughts
and their signatures included. Replay everything instead (the default, with
``store: false``) when the conversation moved here from another provider, was
edited, or must not depend on the server keeping state: the thoughts then travel
with their signatures, as the API asks of stateless use.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._message import Message
from .._arguments import OnLoss, on_loss_of
from .._base import (
    ChatResponse,
    Conversion,
    Loss,
    Losses,
    LossWarning,
    Provider,
    StreamAccumulator,
    conversation_given,
    parser,
    with_state,
)
from ._format import format_body
from ._parse import parse_response
from ._stream import InteractionsStream
from ._tools import format_tools, parse_tools
from ._turns import input_messages
from ._wire import NAME, PREVIOUS, failure, mapping, opt_string

if TYPE_CHECKING:
    from ...tools import Toolbox, ToolDefinition

__all__ = ["NAME", "PROVIDER", "GeminiInteractionsProvider", "InteractionsStream"]


class GeminiInteractionsProvider(Provider):
    """The Interactions API wire format."""

    name = NAME
    tool_mappings = True

    def stream(self) -> StreamAccumulator:
        """A fresh accumulator for one streamed interaction."""
        return InteractionsStream(self.tag)

    def format_tools(
        self, tools: Sequence[ToolDefinition | Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """The ``tools`` part of a request; built-in tool mappings pass through unchanged."""
        losses = Losses()
        out = format_tools(tools, losses)
        for loss in losses.items:
            warnings.warn(LossWarning(f"{self.name}: {loss}"), stacklevel=2)
        return out

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The function tools of a request body (or a ``tools`` list); DecodeError when malformed."""
        try:
            return parse_tools(body_or_list)
        except Exception as exc:
            raise failure(exc, "tools") from None

    def convert(
        self,
        conversation: Iterable[Message] | None = None,
        tools: Iterable[ToolDefinition | Mapping[str, Any]] | Toolbox | None = (),
        *,
        on_loss: OnLoss = "warn",
        messages: Iterable[Message] | None = None,
        previous_interaction_id: str | bool | None = None,
    ) -> Conversion:
        """``Provider.convert``, with ``previous_interaction_id`` as in ``format_request``."""
        how = on_loss_of(on_loss, False)
        formatter = functools.partial(self._format, previous_interaction_id=previous_interaction_id)
        given = conversation_given(conversation, messages)
        return Conversion(*self._request(given, tools, how, formatter, "convert"))

    def format_request(
        self,
        conversation: Iterable[Message] | None = None,
        tools: Iterable[ToolDefinition | Mapping[str, Any]] | Toolbox | None = (),
        *,
        strict: bool = False,
        on_loss: OnLoss = "warn",
        messages: Iterable[Message] | None = None,
        previous_interaction_id: str | bool | None = None,
    ) -> dict[str, Any]:
        """``Provider.format_request``, plus ``previous_interaction_id``.

        ``previous_interaction_id``: True sends only what follows the last interaction
        this provider parsed into the conversation, with its id (everything when there
        is none); an interaction id sends what follows that interaction. ``tools`` may
        also hold built-in tool mappings (``{"type": "google_search"}``), passed through.
        """
        how = on_loss_of(on_loss, strict)
        formatter = functools.partial(self._format, previous_interaction_id=previous_interaction_id)
        given = conversation_given(conversation, messages)
        return self._request(given, tools, how, formatter, "format_request")[0]

    def _format(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition | Mapping[str, Any]],
        previous_interaction_id: str | bool | None = None,
    ) -> tuple[dict[str, Any], Sequence[Loss]]:
        return format_body(messages, tools, self.tag, previous_interaction_id)

    @parser
    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse an Interaction object (or an error body: finish_reason ERROR)."""
        return parse_response(body, self.tag)

    @parser
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as an Interactions request body (or its ``input``
        list); an Interaction read with ``GET`` (no ``input``) gives its ``steps``."""
        from ..._message import SystemMessage

        if isinstance(body_or_list, (list, tuple)):
            return input_messages(body_or_list, "", self.tag)
        body = mapping(body_or_list, "")
        out: list[Message] = []
        system = body.get("system_instruction", body.get("systemInstruction"))
        text = opt_string(system, "system_instruction")
        if text is not None:
            out.append(SystemMessage(text))
        # a request's input, else the steps of a stored interaction (its whole timeline)
        key = "input" if body.get("input") is not None else "steps"
        if body.get(key) is not None:
            read = input_messages(body[key], key, self.tag)
            previous = opt_string(body.get(PREVIOUS), PREVIOUS)
            if previous and read:
                first = read[0]
                extras = with_state(first.extras, self.tag, **{PREVIOUS: previous})
                read[0] = dataclasses.replace(first, extras=extras)
            out.extend(read)
        return out


PROVIDER = GeminiInteractionsProvider()
"""The Gemini Interactions provider ``get_provider("gemini_interactions")`` returns."""
