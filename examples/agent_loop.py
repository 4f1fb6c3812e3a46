"""An agent loop: OpenAI Responses with tools and reasoning, then Anthropic, kept in SQLite.

``python examples/agent_loop.py first chats.db`` asks about Paris through the Responses
API (a reasoning item and two parallel calls, then a streamed answer); ``python
examples/agent_loop.py second chats.db``, in a new process, loads the session and
asks about Tokyo through Anthropic. Replies come from ``tests/fixtures/agent_loop``;
to talk to the real APIs, make ``send`` POST the body (with your model and key).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from messages import Message
from messages.providers import ChatResponse, Provider, get_provider, iter_sse
from messages.storage import ChatHistoryStorage, SessionIdentity, SQLiteBackend
from messages.tools import Toolbox

CANNED = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "agent_loop"


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return {"Paris": "18 °C, light rain", "Tokyo": "24 °C, sunny"}.get(city, "unknown")


async def local_time(timezone: str) -> str:
    """The local time in an IANA timezone."""
    await asyncio.sleep(0)  # a real tool would await a clock service here
    return "14:00" if timezone == "Europe/Paris" else "21:00"


TOOLS = Toolbox([get_weather, local_time])
turns: dict[str, int] = {}


def send(provider: Provider, body: dict[str, Any]) -> ChatResponse:
    """The model's reply to ``body``: the next canned one (a JSON body or an SSE stream)."""
    turns[provider.name] = n = turns.get(provider.name, 0) + 1
    path = CANNED / f"{provider.name}_{n}.json"
    if path.exists():
        return provider.parse_response(json.loads(path.read_text(encoding="utf-8")))
    with open(CANNED / f"{provider.name}_{n}.sse", encoding="utf-8") as stream:
        return provider.stream().feed_all(iter_sse(stream))  # text/event-stream lines


def ask(session: ChatHistoryStorage, provider: Provider, question: str) -> str:
    """One user turn: call the model, run the tools it asks for, until it answers."""
    session.add(Message.user(question))
    while True:
        body = provider.format_request(session, TOOLS)  # losses warn once per message
        reply = send(provider, body).message
        session.add(reply)
        if not reply.tool_calls:
            session.save()
            return reply.text
        session.extend(asyncio.run(TOOLS.arun_all(reply)))  # sync and async tools


def main(step: str, database: str) -> None:
    with SQLiteBackend(database) as backend:  # closed at the end
        session = ChatHistoryStorage(backend, SessionIdentity("travel", "trip-1"))
        if step == "first":
            session.add(Message.system("You are a concise travel assistant."))
            print(ask(session, get_provider("openai_responses"), "Weather and time in Paris?"))
        else:  # a new process: the session comes back from the database
            print(ask(session, get_provider("anthropic"), "And the weather in Tokyo?"))
        session.validate()  # an OrderingError if the stored turns broke the rules
        calls = sum(len(m.tool_calls) for m in session.messages())
        print(f"{session.len()} messages, {calls} tool calls, valid: True")


if __name__ == "__main__":
    main(*sys.argv[1:3])
