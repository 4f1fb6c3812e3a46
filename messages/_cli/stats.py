"""``stats IN``: messages per role, tool calls per name (invalid ones counted, and said),
unanswered calls, estimated tokens."""

from __future__ import annotations

import sys

from .._message import ToolResultMessage
from .._role import MessageRole
from .._tokens import estimate_tokens
from .._tool_call import InvalidToolCall, ToolCall
from .decode import decode
from .sink import pretty
from .source import Opened
from .terminal import json_printable, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

__all__ = ["run"]

#: The name shown for an invalid tool call that has none (no tool name has parentheses).
_UNNAMED = "(unnamed)"


def run(args: argparse.Namespace) -> int:
    """Run ``stats``; return the exit status."""
    if args.records:
        from .records import stats as records_stats

        return records_stats(args)
    roles = dict.fromkeys(MessageRole, 0)
    calls: dict[str, int] = {}
    invalid: dict[str, int] = {}
    pending: dict[str, str] = {}
    tokens = 0
    with Opened(args) as source:
        for decoded in decode(source, args.format):
            message = decoded.message
            roles[message.role] += 1
            tokens += estimate_tokens(message)
            if isinstance(message, ToolResultMessage):
                pending.pop(message.tool_call_id, None)
            made: list[ToolCall | InvalidToolCall] = [*message.tool_calls]
            made += message.invalid_tool_calls
            for call in made:
                name = call.name or _UNNAMED
                calls[name] = calls.get(name, 0) + 1
                pending[call.id] = name
                if isinstance(call, InvalidToolCall):  # counted, and said
                    invalid[name] = invalid.get(name, 0) + 1
    total = sum(roles.values())
    if args.json:
        report = {
            "messages": total,
            "roles": {role.value: n for role, n in roles.items()},
            "tool_calls": dict(sorted(calls.items())),
            "invalid_tool_calls": dict(sorted(invalid.items())),
            "unanswered_tool_calls": [{"id": i, "name": n} for i, n in pending.items()],
            "estimated_tokens": tokens,
        }
        sys.stdout.write(json_printable(pretty(report)) + "\n")
        return 0
    _table(total, roles, calls, invalid, pending, tokens)
    return 0


def _table(
    total: int,
    roles: dict[MessageRole, int],
    calls: dict[str, int],
    invalid: dict[str, int],
    pending: dict[str, str],
    tokens: int,
) -> None:
    """The figures as aligned rows on stdout."""
    rows: list[tuple[str, int]] = [("messages", total)]
    rows += [(f"  {role.value}", n) for role, n in roles.items() if n]
    rows.append(("tool calls", sum(calls.values())))
    rows += [(f"  {name}", n) for name, n in sorted(calls.items())]
    if invalid:
        rows.append(("invalid tool calls (of these)", sum(invalid.values())))
        rows += [(f"  {name}", n) for name, n in sorted(invalid.items())]
    rows.append(("unanswered tool calls", len(pending)))
    unanswered: dict[str, int] = {}
    for name in pending.values():
        unanswered[name] = unanswered.get(name, 0) + 1
    rows += [(f"  {name}", n) for name, n in sorted(unanswered.items())]
    rows.append(("estimated tokens", tokens))
    width = max(len(label) for label, _ in rows)
    digits = max(len(str(n)) for _, n in rows)
    for label, n in rows:
        say(f"{label:<{width}}  {n:>{digits}}")
