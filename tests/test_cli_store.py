"""``export`` and ``import`` between a transcript and a store: a real SQLite file, a real
JSON-file directory and a real PostgreSQL server (the suite's, tests/postgres_server.py).

What a user relies on: a session exported, imported into another store and exported
again gives the same bytes; an import that breaks the ordering rules (or does not
decode) writes nothing, not even a new store; every failure names where it is; and
the commands that read transcripts, given a SQLite database, say to use ``export``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    from_json,
    to_jsonl,
)
from messages._cli import main
from messages.storage import (
    Backend,
    ChatHistoryStorage,
    JsonFileBackend,
    SessionIdentity,
    SQLiteBackend,
)
from tests import storage_backends, strategies
from tests.cli_support import cli, example, jsonl, one_line, python

KINDS = ["sqlite", "json", "postgres"]
IDENT = SessionIdentity("support-bot", "chat-42", "user-7")
SESSION = ["--agent", "support-bot", "--session", "chat-42", "--scope", "user-7"]


def postgres_url(dsn: str) -> str:
    """The test server's DSN as a ``postgresql://`` URL (the form STORE takes)."""
    if dsn.startswith(("postgresql://", "postgres://")):
        return dsn
    pairs = dict(item.split("=", 1) for item in dsn.split())
    user = quote(pairs.get("user", "postgres"), safe="")
    host = pairs.get("host", "localhost")
    port = pairs.get("port", "5432")
    db = quote(pairs.get("dbname", "postgres"), safe="")
    return f"postgresql://{user}@{host}:{port}/{db}?connect_timeout=5"


@dataclass
class Store:
    """A store of one kind: the STORE argument, the options it needs, its backend."""

    kind: str
    spec: str
    options: list[str] = field(default_factory=list)
    prefix: str = ""

    def backend(self) -> Backend:
        if self.kind == "sqlite":
            return SQLiteBackend(self.spec)
        if self.kind == "json":
            return JsonFileBackend(self.spec)
        from messages.storage import PostgresBackend

        return PostgresBackend(self.spec, table_prefix=self.prefix)

    def save(self, msgs: Sequence[Message], identity: SessionIdentity = IDENT) -> None:
        backend = self.backend()
        try:
            storage = ChatHistoryStorage(backend, identity)
            storage.extend(msgs)
            storage.save()
        finally:
            close = getattr(backend, "close", None)
            if close is not None:
                close()

    def load(self, identity: SessionIdentity = IDENT) -> object:
        backend = self.backend()
        try:
            return backend.load(identity)
        finally:
            close = getattr(backend, "close", None)
            if close is not None:
                close()


def new_store(kind: str, tmp_path: Path, request: pytest.FixtureRequest, name: str) -> Store:
    """A store of ``kind`` with nothing in it yet (the SQLite file does not exist)."""
    if kind == "sqlite":
        return Store(kind, str(tmp_path / f"{name}.db"))
    if kind == "json":
        directory = tmp_path / name
        directory.mkdir()
        return Store(kind, str(directory))
    dsn: str = request.getfixturevalue("postgres_dsn")
    prefix = storage_backends.fresh_prefix()
    request.addfinalizer(lambda: storage_backends.drop_tables(dsn, prefix))
    return Store(kind, postgres_url(dsn), ["--table-prefix", prefix], prefix)


@pytest.fixture(params=KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return new_store(request.param, tmp_path, request, "source")


def export(capsys: pytest.CaptureFixture[str], where: Store, *more: str) -> tuple[int, str, str]:
    return cli(capsys, "export", where.spec, *SESSION, *where.options, *more)


def import_(
    capsys: pytest.CaptureFixture[str], path: Path, where: Store, *more: str
) -> tuple[int, str, str]:
    return cli(capsys, "import", str(path), where.spec, *SESSION, *where.options, *more)


# -- round trips --------------------------------------------------------------------


@pytest.mark.parametrize("target_kind", KINDS)
def test_export_import_export_gives_the_same_bytes(
    capsys: pytest.CaptureFixture[str],
    store: Store,
    target_kind: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    conversation = example()
    store.save(conversation)
    code, first, err = export(capsys, store)
    assert (code, err) == (0, "")
    assert first == to_jsonl(conversation)
    (tmp_path / "chat.jsonl").write_text(first, encoding="utf-8")
    target = new_store(target_kind, tmp_path, request, "target")
    code, out, err = import_(capsys, tmp_path / "chat.jsonl", target)
    assert (code, out) == (0, "")
    assert one_line(err).endswith(
        f"added {len(conversation)} messages to session 'chat-42' of agent 'support-bot', "
        f"scope 'user-7' ({len(conversation)} messages in all)"
    )
    code, again, err = export(capsys, target)
    assert (code, err) == (0, "")
    assert again.encode() == first.encode()
    assert [from_json(line) for line in again.splitlines()] == conversation


@settings(max_examples=25)
@given(
    msgs=st.lists(
        st.one_of(
            strategies.system_messages,
            strategies.user_messages,
            strategies.assistant_messages,
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda m: m.id,
    )
)
def test_any_messages_round_trip_through_a_sqlite_file(msgs: list[Message]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        transcript = Path(tmp, "in.jsonl")
        transcript.write_text(to_jsonl(msgs), encoding="utf-8")
        db = str(Path(tmp, "chats.db"))
        argv = [db, "--agent", "a", "--session", "s"]
        assert main(["import", str(transcript), *argv]) == 0
        out = Path(tmp, "out.jsonl")
        assert main(["export", *argv, "-o", str(out)]) == 0
        text = out.read_text(encoding="utf-8")
        assert text == to_jsonl(msgs)
        assert [from_json(line) for line in text.splitlines()] == msgs


def test_export_writes_to_an_output_file(
    capsys: pytest.CaptureFixture[str], store: Store, tmp_path: Path
) -> None:
    store.save(example())
    out = tmp_path / "chat.jsonl"
    code, stdout, err = export(capsys, store, "-o", str(out))
    assert (code, stdout, err) == (0, "", "")
    assert out.read_text(encoding="utf-8") == to_jsonl(example())


# -- import: checked, all or nothing --------------------------------------------------


def test_an_import_that_breaks_the_order_writes_nothing(
    capsys: pytest.CaptureFixture[str], store: Store, tmp_path: Path
) -> None:
    stored = [SystemMessage("be brief"), UserMessage("hi"), AssistantMessage("hello")]
    store.save(stored)
    before = store.load()
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text(
        jsonl([UserMessage("and now?"), ToolResultMessage("call_1", "42")]), encoding="utf-8"
    )
    code, out, err = import_(capsys, transcript, store)
    assert (code, out) == (1, "")
    assert one_line(err) == (
        f"{transcript}: line 2: [orphan_tool_result] a tool result must follow an "
        "assistant message with tool_calls; nothing was imported"
    )
    assert store.load() == before


def test_the_order_is_checked_after_the_stored_messages(
    capsys: pytest.CaptureFixture[str], store: Store, tmp_path: Path
) -> None:
    # The session waits for a tool result: a transcript that starts with it continues it.
    call = ToolCallMessage([ToolCall("call_1", "lookup", {"q": "x"})])
    store.save([UserMessage("look it up"), call])
    transcript = tmp_path / "rest.jsonl"
    transcript.write_text(
        jsonl([ToolResultMessage("call_1", "found"), AssistantMessage("here it is")]),
        encoding="utf-8",
    )
    code, _, err = import_(capsys, transcript, store)
    assert code == 0, err
    assert "added 2 messages" in err
    assert "(4 messages in all)" in err
    code, out, _ = export(capsys, store)
    assert [json.loads(line)["role"] for line in out.splitlines()] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    # Another result, after the answer: nothing waits for it.
    again = tmp_path / "again.jsonl"
    again.write_text('{"role": "tool", "tool_call_id": "call_1", "content": "x"}\n', "utf-8")
    code, _, err = import_(capsys, again, store)
    assert code == 1
    assert one_line(err).startswith(f"{again}: line 1: [orphan_tool_result] ")


def test_importing_the_same_messages_twice_is_refused(
    capsys: pytest.CaptureFixture[str], store: Store, tmp_path: Path
) -> None:
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text(jsonl(example()), encoding="utf-8")
    assert import_(capsys, transcript, store)[0] == 0
    before = store.load()
    code, _, err = import_(capsys, transcript, store)
    assert code == 1
    assert one_line(err).startswith(f"{transcript}: line 1: [duplicate_id] ")
    assert store.load() == before


def test_a_strict_import_checks_the_strict_rules(
    capsys: pytest.CaptureFixture[str], store: Store, tmp_path: Path
) -> None:
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text(jsonl([UserMessage("a"), UserMessage("b")]), encoding="utf-8")
    code, _, err = import_(capsys, transcript, store, "--policy", "strict")
    assert code == 1
    assert one_line(err).startswith(f"{transcript}: line 1: [system_first] ")
    assert store.load() is None
    assert import_(capsys, transcript, store)[0] == 0  # lenient by default, as the storage


@pytest.mark.parametrize("kind", ["sqlite", "json-new"])
def test_a_failed_import_creates_no_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str
) -> None:
    target = tmp_path / ("new.db" if kind == "sqlite" else "sessions")
    spec = str(target) if kind == "sqlite" else str(target) + "/"
    bad_order = tmp_path / "order.jsonl"
    bad_order.write_text(jsonl([ToolResultMessage("call_1", "42")]), encoding="utf-8")
    bad_json = tmp_path / "json.jsonl"
    bad_json.write_text('{"role": "user", "content": "hi"}\n{"role": \n', encoding="utf-8")
    for transcript in (bad_order, bad_json):
        code, _, err = cli(capsys, "import", str(transcript), spec, *SESSION)
        assert code == 1
        assert "line" in err
        assert not target.exists()
    good = tmp_path / "good.jsonl"
    good.write_text(jsonl([UserMessage("hi")]), encoding="utf-8")
    assert cli(capsys, "import", str(good), spec, *SESSION)[0] == 0
    assert target.exists()


def test_import_reads_a_provider_request_body(
    capsys: pytest.CaptureFixture[str], store: Store, tmp_path: Path
) -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "be brief",
        "messages": [
            {"role": "user", "content": "weather in Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_01",
                        "name": "weather",
                        "input": {"c": "Oslo"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "-3 C"}],
            },
        ],
    }
    transcript = tmp_path / "body.json"
    transcript.write_text(json.dumps(body), encoding="utf-8")
    code, _, err = import_(capsys, transcript, store, "--from", "anthropic")
    assert code == 0, err
    assert "added 4 messages" in err
    code, out, _ = export(capsys, store)
    got = [from_json(line) for line in out.splitlines()]
    assert [m.role.value for m in got if isinstance(m, Message)] == [
        "system",
        "user",
        "assistant",
        "tool",
    ]
    assert isinstance(got[2], ToolCallMessage)
    assert got[2].tool_calls[0].arguments == {"c": "Oslo"}
    assert isinstance(got[3], ToolResultMessage)
    assert got[3].tool_call_id == "toolu_01"


def test_an_empty_transcript_adds_nothing(
    capsys: pytest.CaptureFixture[str], store: Store, tmp_path: Path
) -> None:
    transcript = tmp_path / "empty.json"
    transcript.write_text("[]", encoding="utf-8")
    code, _, err = import_(capsys, transcript, store)
    assert code == 0
    assert one_line(err).endswith(
        "added 0 messages to session 'chat-42' of agent "
        "'support-bot', scope 'user-7' (0 messages in all)"
    )
    assert store.load() is None  # no session was created
    store.save([UserMessage("hi")])
    assert import_(capsys, transcript, store)[0] == 0
    assert export(capsys, store)[1] == to_jsonl(store_messages(store))


def store_messages(where: Store) -> tuple[Message, ...]:
    backend = where.backend()
    try:
        return ChatHistoryStorage(backend, IDENT).messages()
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()


# -- export: what is there and what is not ---------------------------------------------


def test_exporting_a_session_that_is_not_there_names_those_that_are(
    capsys: pytest.CaptureFixture[str], store: Store
) -> None:
    store.save([UserMessage("hi")], SessionIdentity("support-bot", "chat-7", "user-7"))
    code, out, err = export(capsys, store)
    assert (code, out) == (1, "")
    assert one_line(err).endswith(
        "no session 'chat-42' of agent 'support-bot', scope 'user-7'; it has 'chat-7'"
    )
    code, _, err = cli(capsys, "export", store.spec, "--agent", "other", "--session", "s")
    assert code == 1
    assert "no session 's'; agent 'other' has none there" in err


def test_a_session_saved_empty_exports_nothing(
    capsys: pytest.CaptureFixture[str], store: Store
) -> None:
    backend = store.backend()
    try:
        storage = ChatHistoryStorage(backend, IDENT)
        storage.add(UserMessage("hi"))
        storage.save()
        storage.clear()
        storage.save()
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    assert export(capsys, store) == (0, "", "")


def test_exporting_a_store_that_does_not_exist(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for missing in (tmp_path / "nothing.db", tmp_path / "nowhere"):
        code, out, err = cli(capsys, "export", str(missing), *SESSION)
        assert (code, out) == (1, "")
        assert one_line(err) == f"{missing}: no such file or directory"
        assert not missing.exists()


def test_exporting_from_another_programs_sqlite_file_leaves_it_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import sqlite3

    path = tmp_path / "places.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE places (name TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    code, _, err = cli(capsys, "export", str(path), *SESSION)
    assert code == 1
    assert one_line(err) == f"{path}: a SQLite database that holds no stored sessions"
    assert path.read_bytes() == before


# -- STORE arguments that are not a store ---------------------------------------------


def test_a_store_argument_that_is_no_store_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n", encoding="utf-8")
    code, _, err = cli(capsys, "export", str(text), *SESSION)
    assert code == 2
    assert one_line(err).startswith(f"{text}: neither a SQLite database nor a directory")
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text(jsonl([UserMessage("hi")]), encoding="utf-8")
    code, _, err = cli(capsys, "import", str(transcript), str(tmp_path / "newstore"), *SESSION)
    assert code == 2
    assert "ending .db, .sqlite, .sqlite3 or a directory ending with /" in err
    assert not (tmp_path / "newstore").exists()
    code, _, err = cli(capsys, "export", str(tmp_path), *SESSION, "--table-prefix", "x_")
    assert code == 2
    assert one_line(err) == "--table-prefix applies only to a postgresql:// STORE"
    url = "postgresql://app@db.example/app"
    code, _, err = cli(capsys, "export", url, *SESSION, "--table-prefix", "no spaces")
    assert code == 2
    assert one_line(err).startswith("--table-prefix: ")
    code, _, err = cli(capsys, "export", str(tmp_path), "--agent", "", "--session", "s")
    assert code == 2
    assert one_line(err) == "--agent: must not be empty"


def test_a_postgres_store_without_psycopg_says_what_to_install() -> None:
    done = python(
        "-c",
        "import sys; sys.modules['psycopg'] = None\n"
        "from messages._cli import main\n"
        "sys.exit(main(['export', 'postgresql://app:hunter2@db.example/app?sslmode=require',"
        " '--agent', 'a', '--session', 's']))",
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert one_line(done.stderr) == (
        "postgresql://app@db.example/app: a PostgreSQL store needs psycopg 3: "
        "pip install 'llm-messages[postgres]'"
    )


def test_a_postgres_password_never_appears(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, postgres_dsn: str
) -> None:
    # The test server trusts every connection, so any password is accepted and ignored.
    url = postgres_url(postgres_dsn).replace("://postgres@", "://postgres:hunter2@", 1)
    assert "hunter2" in url
    prefix = storage_backends.fresh_prefix()
    try:
        transcript = tmp_path / "chat.jsonl"
        transcript.write_text(jsonl([UserMessage("hi")]), encoding="utf-8")
        argv = [url, *SESSION, "--table-prefix", prefix]
        code, out, err = cli(capsys, "import", str(transcript), *argv)
        assert code == 0, err
        assert "hunter2" not in out + err
        assert "connect_timeout" not in err
        code, out, err = cli(capsys, "export", *argv)
        assert code == 0
        assert len(out.splitlines()) == 1
        code, out, err = cli(capsys, "export", url.replace("127.0.0.1:", "127.0.0.1:1"), *SESSION)
        assert code == 1
        assert "hunter2" not in out + err
    finally:
        storage_backends.drop_tables(postgres_dsn, prefix)


# -- the commands that read transcripts, given a SQLite database -----------------------


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "chats.db"
    Store("sqlite", str(path)).save(example())
    yield path


@pytest.mark.parametrize(
    "argv",
    [
        ["validate"],
        ["stats"],
        ["convert", "--to", "anthropic"],
        ["repair"],
    ],
)
def test_a_sqlite_file_given_as_a_transcript_points_to_export(
    capsys: pytest.CaptureFixture[str], sqlite_store: Path, argv: list[str]
) -> None:
    code, out, err = cli(capsys, argv[0], str(sqlite_store), *argv[1:])
    assert (code, out) == (2, "")
    line = one_line(err)
    assert line.startswith(f"{sqlite_store}: a SQLite database, not a transcript")
    assert f"python -m messages export {sqlite_store} --agent A --session S" in line
    assert "UTF-8" not in line
