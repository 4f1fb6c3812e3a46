"""Request bodies (``input`` and ``instructions``) to canonical messages.

``instructions`` is a leading system message; ``input`` is a string (one user
message) or a list of items. Message items (with ``type: "message"`` or in the
short ``{role, content}`` form) of the user, system and developer are those
messages; consecutive assistant-side items (assistant messages, reasoning,
function calls and every item this package does not model) form one assistant
message; a ``function_call_output`` is a tool result. An output without a
``call_id`` answers the first call of the turn before it still unanswered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ... import _build
from ..._frozen import EMPTY, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._message import Message, SystemMessage, UserMessage
from ...errors import DecodeError, ident
from ._items import decode_output, decode_system, decode_turn, decode_user
from ._read import INPUT, array, mapping, opt_string

__all__ = ["parse_messages"]


def _answer(open_calls: list[str], call_id: str | None, index: int) -> str:
    """The call id an output at ``index`` answers (pairing outputs that name none)."""
    if call_id:
        if call_id in open_calls:
            open_calls.remove(call_id)
        return call_id
    if open_calls:
        return open_calls.pop(0)
    return derive_call_id(DERIVED_ID_PREFIX, "orphan", index, "")


def parse_messages(body_or_list: Mapping[str, Any] | Sequence[Any], tag: str) -> list[Message]:
    """The conversation of a request body (or of its ``input`` list)."""
    out: list[Message] = []
    if isinstance(body_or_list, Mapping):
        instructions = body_or_list.get("instructions")
        if instructions is not None:
            if not isinstance(instructions, str):
                raise DecodeError("expected a string of instructions", "instructions")
            out.append(SystemMessage(str(instructions)))
        raw = body_or_list.get("input")
        if raw is None:
            return out
        if isinstance(raw, str):
            # the input was this string: it goes back as one (see _format)
            state = FrozenDict({tag: FrozenDict({INPUT: True})})
            out.append(_build.message(UserMessage, str(raw), None, EMPTY, state))
            return out
        items, prefix = array(raw, "input"), "input"
    elif isinstance(body_or_list, (list, tuple)):
        items, prefix = body_or_list, ""
    else:
        raise DecodeError("expected a request body or a list of input items", "")
    run: list[tuple[Mapping[str, Any], str]] = []
    start = 0
    open_calls: list[str] = []

    def flush() -> None:
        nonlocal open_calls
        if run:
            message, _ = decode_turn(run, tag, f"request|{start}")
            out.append(message)
            open_calls = [c.id for c in message.tool_calls] + [
                c.id for c in message.invalid_tool_calls
            ]
            run.clear()

    for i, raw_item in enumerate(items):
        path = f"{prefix}[{i}]"
        item = mapping(raw_item, path)
        t = item.get("type")
        role = item.get("role")
        if t == "message" or (t is None and role is not None):
            if role == "assistant":
                if not run:
                    start = i
                run.append((item, path))
                continue
            flush()
            if role == "user":
                out.append(decode_user(item, path, tag))
            elif role in ("system", "developer"):
                out.append(decode_system(item, path, tag, role, leading=not out))
            else:
                raise DecodeError(
                    f"unsupported role {ident(role)}; expected user, assistant, system or developer",
                    f"{path}.role",
                )
        elif t == "function_call_output":
            flush()
            call_id = opt_string(item.get("call_id"), f"{path}.call_id")
            out.append(decode_output(item, path, tag, _answer(open_calls, call_id, i)))
        else:
            if not run:
                start = i
            run.append((item, path))
    flush()
    return out
