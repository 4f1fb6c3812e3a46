"""``repair IN``: the conversation made to pass an ordering policy, in the input's format.

Decodes the input, runs ``messages.repair`` and writes the result as the input
was written: canonical or envelope JSON Lines as JSON Lines, a list as a list, an
object with a ``messages`` list as the same object (its other keys kept); a
provider's request body formatted back by that provider, its other keys (model,
options, tools) kept as they were. Each change is listed on stderr as
``path: rule`` (API.md), the path being the message's place in the input.
"""

from __future__ import annotations

from .._jsonl import encode_line
from .._ordering import OrderingPolicy, check_sequence
from .._repair import repair
from ..errors import OrderingError
from .decode import Decoded, decode
from .formats import is_provider
from .ids import Identities
from .sink import Sink
from .source import Document, Lines, Opened
from .terminal import Failure, loss_words, warn, warn_losses
from .validate import policy_named

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

    from .._message import Message

__all__ = ["run"]

#: Request-body keys that hold the conversation (replaced by the repaired one);
#: every other key of a provider's body is written back as it was.
_CONVERSATION_KEYS = frozenset(
    ("messages", "contents", "system", "systemInstruction", "system_instruction")
)


def run(args: argparse.Namespace) -> int:
    """Run ``repair``; return the exit status."""
    policy = policy_named(args.policy)
    with Opened(args) as source:
        decoded = list(decode(source, args.format))
    fixed, changes = repair([d.message for d in decoded], policy=policy)
    check_sequence(policy, fixed)  # what is written passes, or nothing is
    for change in changes:
        where = _where(decoded, change.index)
        warn(f"{where}: {change.rule}")
    if decoded and not fixed:
        # every message was dropped: no output reads back as that conversation in every
        # format (an empty JSON Lines file or request is refused as an empty input)
        raise Failure("nothing is left after repair (every message was dropped); nothing written")
    if is_provider(args.format):
        return _write_provider(args, source, fixed)
    ids = Identities()
    ids.observe(decoded)
    del decoded  # the repaired messages and the ids are all that is written from here on
    envelope = args.format == "envelope"
    items = (ids.output_dict(m, i, envelope=envelope) for i, m in enumerate(fixed))
    with Sink(args.output) as sink:
        if isinstance(source, Lines):
            sink.write_lines(map(encode_line, items))  # each line as it is made
        else:
            value = source.value
            if type(value) is dict and type(value.get("messages")) is list:
                sink.write_json({**value, "messages": list(items)})
            else:
                sink.write_json(list(items))
    return 0


def _where(decoded: Sequence[Decoded], index: int) -> str:
    if 0 <= index < len(decoded):
        loc = decoded[index].loc
        if loc:
            return loc
    return f"message {index}"


def _write_provider(
    args: argparse.Namespace,
    source: Document | Lines,
    fixed: Sequence[Message],
) -> int:
    from ..providers import get_provider

    provider = get_provider(args.format)
    conversion = provider.convert(fixed, on_loss="ignore")
    # A loss names its place in the repaired conversation (messages[i] of it), as
    # convert does for a provider's input.
    report = [(provider.name, loss.path, loss_words(loss)) for loss in conversion.losses]
    warn_losses(False, report, provider.name)
    body = {k: v for k, v in conversion.body.items() if k in _CONVERSATION_KEYS}
    _check_carried(provider.parse_messages(body), policy_named(args.policy), provider.name)
    lists_only = len(body) == 1 and set(body) <= {"messages", "contents"}
    original = source.value if isinstance(source, Document) else None
    out: Any
    if type(original) is dict and "role" not in original:
        out = _in_place(original, body)
    elif lists_only:
        (out,) = body.values()  # a list of wire messages, as the input was
    else:
        out = body
    with Sink(args.output) as sink:
        if isinstance(source, Lines) and lists_only:
            sink.write_lines(map(encode_line, out))
        else:
            sink.write_json(out)
    return 0


def _check_carried(read_back: Sequence[Message], policy: OrderingPolicy, name: str) -> None:
    """Failure when the provider's body, read back, does not pass: nothing is written then.

    Anthropic and Gemini keep the system prompt outside their message list and keep
    no empty one, so the empty system message repair puts first under strict
    ordering is left out of their body: the body says "no system prompt", which
    is what the repaired conversation says too. That one rule is a note, not a failure.
    """
    try:
        check_sequence(policy, read_back)
    except OrderingError as exc:
        if exc.rule == "system_first" and exc.index == 0:
            warn(f"note: {name} keeps no empty system prompt; the body has none")
            return
        raise Failure(
            f"{name} cannot carry the repaired conversation: read back, it breaks "
            f"[{exc.rule}] at message {exc.index}; nothing written "
            "(--policy lenient, or another --format, may do)"
        ) from None


def _in_place(original: dict[str, Any], conversation: dict[str, Any]) -> dict[str, Any]:
    """A request body with its conversation keys replaced; its options and tools as they were."""
    new = dict(conversation)
    out: dict[str, Any] = {}
    for key, value in original.items():
        if key not in _CONVERSATION_KEYS:
            out[key] = value
        elif key in new:
            out[key] = new.pop(key)
    out.update(new)  # a key the input had not (a system prompt repair inserted)
    return out
