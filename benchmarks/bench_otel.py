"""OpenTelemetry GenAI messages: formatting a conversation into span attributes and back.

Rows are (what, ns per operation), each timed interleaved with its baseline beside it:

* ``format_request`` per message of a 100-message conversation with parallel tool
  calls (``gen_ai.system_instructions`` and ``gen_ai.input.messages``), beside the
  canonical codec's ``to_dict`` of the same messages;
* ``parse_messages`` per message of those attributes, beside ``to_dict`` per message;
* ``format_output`` and ``parse_response`` of one ``gen_ai.output.messages`` entry (the
  semantic conventions' tool-call example), beside ``to_dict`` of its message.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

from _timing import compare
from _workloads import FIXTURES, Row, conversation, format_rows

from messages import to_dict
from messages.providers import get_provider
from messages.providers.otel import PROVIDER as OTEL

NAME = "otel"
SYSTEM = "You are a travel assistant."


def _parse_rows() -> list[Row]:
    p = get_provider(NAME)
    ms = conversation(system=SYSTEM)
    body = p.format_request(ms)
    parsed = p.parse_messages(body)
    assert len(parsed) == len(ms)
    n = len(ms)
    t = compare({"parse": partial(p.parse_messages, body), "to_dict": partial(to_dict, parsed)})
    return [
        (
            f"parse_messages per message, otel ({n} msgs, tool calls)",
            t["parse"] / n,
            t["to_dict"] / n,
            "to_dict per message",
        )
    ]


def _output_rows() -> list[Row]:
    p = OTEL
    spans = json.loads((FIXTURES / "otel" / "spans.json").read_text(encoding="utf-8"))
    output = spans["tool_call_span_1"]["gen_ai.output.messages"]
    response = p.parse_response(output)
    message = response.message
    t = compare(
        {
            "parse": partial(p.parse_response, output),
            "format": partial(p.format_output, message, response.finish_reason),
            "to_dict": partial(to_dict, message),
        }
    )
    return [
        (
            "parse_response, otel (tool call output message)",
            t["parse"],
            t["to_dict"],
            "to_dict of that message",
        ),
        (
            "format_output, otel (tool call output message)",
            t["format"],
            t["to_dict"],
            "to_dict of that message",
        ),
    ]


def bench_otel() -> list[Row]:
    """Every otel row (see the module docstring)."""
    return [
        *format_rows(conversation(system=SYSTEM), (NAME,)),
        *_parse_rows(),
        *_output_rows(),
    ]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    for what, ns, base, desc in bench_otel():
        print(f"{what:<72} {ns:>10.1f} ns  {ns / base:>6.2f}x {desc}")
