"""Immutable collections of messages: ``Messages`` and the sectioned ``MessageStore``.

Both are values: every operation returns a new object and shares the message
objects themselves (messages are immutable, so nothing is copied).

Decisions:

* ``Messages`` equals only another ``Messages`` with equal messages in the same
  order (as a ``tuple`` never equals a ``list``); compare with ``tuple(ms) == (...)``
  when you hold a plain sequence. It is hashable.
* ``merged_per_role()`` merges runs of consecutive messages with the same role,
  except tool-call and tool-result messages, which are never merged (each call and
  each result must stay addressable by id). Texts are joined with a blank line
  (``"\\n\\n"``), so paragraphs stay apart, as when a provider folds consecutive
  turns into one; empty texts add no separator. Part contents are concatenated
  (adjacent text parts joined the same way). The merged message is the first
  of the run with the joined content: its class, id, name, metadata and extras.
* ``without_empty()`` keeps tool results even when empty: an empty result still
  answers its call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast, overload

from ._frozen import EMPTY, FrozenDict, freeze_mapping, thaw
from ._json import dumps_compact, json_type, loads
from ._message import Message, ToolCallMessage, ToolResultMessage
from ._parts import ContentPart, TextPart
from ._role import MessageRole
from .errors import DecodeError, MessageError, ValidationError

if TYPE_CHECKING:
    from ._registry import MessageRegistry

__all__ = ["MessageStore", "Messages", "join_content", "join_contents", "mergeable"]

SEPARATOR = "\n\n"
"""What ``merged_per_role`` puts between two merged texts."""


def _check_message(value: object, path: str) -> Message:
    if not isinstance(value, Message):
        raise ValidationError(f"expected a Message, got {type(value).__name__}", path)
    return value


def _check_all(items: tuple[object, ...]) -> None:
    for i, m in enumerate(items):
        if not isinstance(m, Message):
            _check_message(m, f"[{i}]")


def _as_parts(content: object) -> tuple[ContentPart, ...]:
    if content is None:
        return ()
    if isinstance(content, str):
        return (TextPart(content),) if content else ()
    return cast("tuple[ContentPart, ...]", content)


def join_content(a: object, b: object) -> Any:
    """Join two message contents: strings with a blank line, parts by concatenation."""
    if isinstance(a, str) and isinstance(b, str):
        if not a:
            return b
        if not b:
            return a
        return f"{a}{SEPARATOR}{b}"
    pa, pb = _as_parts(a), _as_parts(b)
    if not pa:
        return b if b is not None else a
    if not pb:
        return a
    last, first = pa[-1], pb[0]
    if type(last) is TextPart and type(first) is TextPart:
        joined = join_content(last.text, first.text)
        return (*pa[:-1], TextPart(joined), *pb[1:])
    return (*pa, *pb)


def join_contents(contents: Sequence[Any]) -> Any:
    """``join_content`` folded over ``contents`` from the left, in time linear in their size.

    Folding pairwise copies the growing text (or part tuple) once per step, so a
    run of n same-role messages took O(n^2). Here each text is copied once, by one
    ``str.join``. Equal to the fold for every input (tests/test_collections_runs.py
    checks it against the fold); ``contents`` must not be empty.
    """
    filled = [c for c in contents if c]
    if not filled:
        # The fold keeps the last empty content that is not None.
        return next((c for c in reversed(contents) if c is not None), None)
    if all(isinstance(c, str) for c in filled):
        return SEPARATOR.join(filled)
    joiner = _PartJoiner()
    for c in filled:
        joiner.add(_as_parts(c))
    return joiner.result()


class _PartJoiner:
    """Concatenates part contents; the texts of adjacent TextParts are joined once, at the end."""

    __slots__ = ("parts", "texts", "unchanged")

    def __init__(self) -> None:
        self.parts: list[ContentPart] = []
        #: The texts of a trailing TextPart that the next content may extend.
        self.texts: list[str] = []
        #: That part as it was, while nothing has extended it (it is kept, not rebuilt).
        self.unchanged: ContentPart | None = None

    def add(self, parts: tuple[ContentPart, ...]) -> None:
        """Append a non-empty content's parts."""
        first = parts[0]
        if self.texts and type(first) is TextPart:
            self.texts.append(first.text)
            self.unchanged = None
            parts = parts[1:]
            if not parts:
                return
        self._close_text()
        self.parts.extend(parts[:-1])
        last = parts[-1]
        if type(last) is TextPart:
            self.texts = [last.text]
            self.unchanged = last
        else:
            self.parts.append(last)

    def _close_text(self) -> None:
        if self.texts:
            part = self.unchanged
            if part is None:
                part = TextPart(SEPARATOR.join([t for t in self.texts if t]))
            self.parts.append(part)
            self.texts = []

    def result(self) -> tuple[ContentPart, ...]:
        """The joined parts."""
        self._close_text()
        return tuple(self.parts)


def mergeable(message: Message) -> bool:
    """Whether a message may be merged with a neighbour (never tool calls or results)."""
    return not isinstance(message, (ToolCallMessage, ToolResultMessage))


def _parse_roles(roles: tuple[MessageRole | str, ...]) -> frozenset[MessageRole]:
    return frozenset(MessageRole.parse(r) for r in roles)


def _decode_messages(
    data: object, path: str, registry: MessageRegistry | None = None
) -> tuple[Message, ...]:
    """Decode an array of canonical message dicts; DecodeError with ``path[i]...`` on bad input."""
    from ._codec import message_from_dict

    if not isinstance(data, (list, tuple)):
        raise DecodeError(f"expected an array of messages, got {json_type(data)}", path)
    out: list[Message] = []
    try:
        for d in data:
            out.append(message_from_dict(Message, d, registry))  # noqa: PERF401 - len(out) is the error index
    except DecodeError as exc:
        raise exc.at(f"{path}[{len(out)}]") from None
    except Exception as exc:  # e.g. a list subclass whose iteration fails
        raise _unexpected(exc).at(f"{path}[{len(out)}]") from None
    return tuple(out)


def _unexpected(exc: Exception) -> DecodeError:
    """Any other exception met while decoding, as the DecodeError the decoders promise."""
    from ._part_codec import _unexpected

    return _unexpected(exc)


class Messages(Sequence[Message]):
    """An immutable sequence of messages; slicing and every operation return ``Messages``."""

    __slots__ = ("_hash", "_index", "_items")

    _items: tuple[Message, ...]
    _index: dict[str, Message] | None
    _hash: int | None

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        if isinstance(messages, Messages):
            items = messages._items
        else:
            items = tuple(messages)
            _check_all(items)
        object.__setattr__(self, "_items", items)
        object.__setattr__(self, "_index", None)
        object.__setattr__(self, "_hash", None)

    @classmethod
    def _of(cls, items: tuple[Message, ...]) -> Messages:
        """Wrap a tuple already known to hold only messages (no check)."""
        self = object.__new__(cls)
        object.__setattr__(self, "_items", items)
        object.__setattr__(self, "_index", None)
        object.__setattr__(self, "_hash", None)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Messages is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Messages is immutable (cannot delete {name!r})")

    # -- the Sequence protocol -----------------------------------------------------

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> Messages: ...

    def __getitem__(self, index: int | slice) -> Message | Messages:
        if isinstance(index, slice):
            return Messages._of(self._items[index])
        return self._items[index]

    def __iter__(self) -> Iterator[Message]:
        return iter(self._items)

    def __reversed__(self) -> Iterator[Message]:
        return reversed(self._items)

    def __contains__(self, value: object) -> bool:
        return value in self._items

    def __eq__(self, other: object) -> bool:
        # A list or tuple of equal messages is equal too: Messages stands in for
        # the sequence it was made from (repair(msgs)[0] == msgs when nothing changed).
        if isinstance(other, Messages):
            return self._items == other._items
        if isinstance(other, tuple):
            return self._items == other
        if isinstance(other, list):
            return list(self._items) == other
        return NotImplemented

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash(self._items)
            object.__setattr__(self, "_hash", h)
        return h

    def __add__(self, other: Iterable[Message]) -> Messages:
        return self.extend(other)

    def __repr__(self) -> str:
        return f"Messages({list(self._items)!r})"

    @property
    def items(self) -> tuple[Message, ...]:
        """The messages as a tuple (no copy)."""
        return self._items

    # -- building -------------------------------------------------------------------

    def append(self, message: Message) -> Messages:
        """A new ``Messages`` with ``message`` at the end."""
        _check_message(message, f"[{len(self._items)}]")
        return Messages._of((*self._items, message))

    def extend(self, messages: Iterable[Message]) -> Messages:
        """A new ``Messages`` with ``messages`` at the end."""
        more = messages._items if isinstance(messages, Messages) else Messages(messages)._items
        if not more:
            return self
        return Messages._of(self._items + more)

    # -- selecting ------------------------------------------------------------------

    def filter(self, predicate: Callable[[Message], bool]) -> Messages:
        """The messages for which ``predicate`` is true."""
        return Messages._of(tuple([m for m in self._items if predicate(m)]))

    def for_roles(self, *roles: MessageRole | str) -> Messages:
        """The messages whose role is one of ``roles`` (members or names)."""
        wanted = _parse_roles(roles)
        return Messages._of(tuple([m for m in self._items if m.role in wanted]))

    def except_roles(self, *roles: MessageRole | str) -> Messages:
        """The messages whose role is none of ``roles`` (members or names)."""
        unwanted = _parse_roles(roles)
        return Messages._of(tuple([m for m in self._items if m.role not in unwanted]))

    def first(self) -> Message | None:
        """The first message, or None when empty."""
        return self._items[0] if self._items else None

    def last(self) -> Message | None:
        """The last message, or None when empty."""
        return self._items[-1] if self._items else None

    def get(self, id: str) -> Message | None:
        """The message with this id (the first one, should ids repeat), or None."""
        index = self._index
        if index is None:
            index = {}
            for m in reversed(self._items):
                index[m.id] = m
            object.__setattr__(self, "_index", index)
        return index.get(id)

    # -- transforming ----------------------------------------------------------------

    def merged_per_role(self) -> Messages:
        """Consecutive same-role messages merged into one (never tool calls or results)."""
        out: list[Message] = []
        # Each run's contents are collected and joined once at its end (join_contents):
        # merging pairwise made a run of n messages O(n^2).
        run: list[object] = []
        changed = False
        for m in self._items:
            if out and m.role is out[-1].role and mergeable(m) and mergeable(out[-1]):
                if not run:
                    run.append(out[-1].content)
                run.append(m.content)
                changed = True
                continue
            if run:
                out[-1] = out[-1].with_content(join_contents(run))
                run = []
            out.append(m)
        if run:
            out[-1] = out[-1].with_content(join_contents(run))
        return Messages._of(tuple(out)) if changed else self

    def without_empty(self) -> Messages:
        """Without messages that have no content and no tool calls (tool results stay)."""
        kept = tuple(
            [m for m in self._items if m.parts or m.tool_calls or isinstance(m, ToolResultMessage)]
        )
        return self if len(kept) == len(self._items) else Messages._of(kept)

    # -- dict and JSON ------------------------------------------------------------------

    def to_dicts(self) -> list[dict[str, Any]]:
        """The canonical dict of every message."""
        from ._codec import message_to_dict

        return [message_to_dict(m) for m in self._items]

    @classmethod
    def from_dicts(
        cls, data: Iterable[Mapping[str, Any]], registry: MessageRegistry | None = None
    ) -> Messages:
        """Decode canonical message dicts; DecodeError (with the path) on bad input."""
        try:
            items = data if isinstance(data, (list, tuple)) else _listed(data)
        except Exception as exc:  # an iterable that fails while read
            raise _unexpected(exc) from None
        return Messages._of(_decode_messages(items, "", registry))

    def to_json(self) -> str:
        """A JSON array of the canonical dicts."""
        from ._codec import to_json

        return to_json(self._items)

    @classmethod
    def from_json(cls, text: str | bytes, registry: MessageRegistry | None = None) -> Messages:
        """Decode a JSON array of canonical message dicts."""
        return Messages._of(_decode_messages(loads(text), "", registry))


def _listed(data: object) -> object:
    # A generator or other iterable of dicts is accepted; anything else is reported.
    if isinstance(data, (str, bytes, Mapping)) or not isinstance(data, Iterable):
        return data
    return list(data)


def _check_name(name: object, path: str = "name") -> str:
    if type(name) is not str or not name:
        what = "an empty str" if type(name) is str else type(name).__name__
        raise ValidationError(f"section name must be a non-empty str, got {what}", path)
    return name


def _as_messages(value: Message | Iterable[Message], path: str) -> Messages:
    if isinstance(value, Messages):
        return value
    if isinstance(value, Message):
        return Messages._of((value,))
    try:
        return Messages(value)
    except ValidationError as exc:
        raise exc.at(path) from None
    except TypeError:
        raise ValidationError(
            f"expected a Message or messages, got {type(value).__name__}", path
        ) from None


class MessageStore:
    """Named, ordered sections of ``Messages`` plus ``parameters``; every operation returns a new store."""

    __slots__ = ("_hash", "_parameters", "_sections")

    _sections: tuple[tuple[str, Messages], ...]
    _parameters: FrozenDict
    _hash: int | None

    def __init__(
        self,
        sections: Mapping[str, Iterable[Message]] | Iterable[tuple[str, Iterable[Message]]] = (),
        parameters: Mapping[str, Any] | None = None,
    ) -> None:
        pairs = sections.items() if isinstance(sections, Mapping) else sections
        out: list[tuple[str, Messages]] = []
        seen: set[str] = set()
        for i, pair in enumerate(pairs):
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise ValidationError(
                    f"expected a (name, messages) pair, got {type(pair).__name__}",
                    f"sections[{i}]",
                )
            name = _check_name(pair[0], f"sections[{i}].name")
            if name in seen:
                raise ValidationError("duplicate section name", f"sections[{i}].name")
            seen.add(name)
            out.append((name, _as_messages(pair[1], f"sections[{i}].messages")))
        object.__setattr__(self, "_sections", tuple(out))
        object.__setattr__(self, "_parameters", freeze_mapping(parameters, "parameters"))
        object.__setattr__(self, "_hash", None)

    @classmethod
    def _of(
        cls, sections: tuple[tuple[str, Messages], ...], parameters: FrozenDict
    ) -> MessageStore:
        self = object.__new__(cls)
        object.__setattr__(self, "_sections", sections)
        object.__setattr__(self, "_parameters", parameters)
        object.__setattr__(self, "_hash", None)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"MessageStore is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"MessageStore is immutable (cannot delete {name!r})")

    @classmethod
    def from_messages(cls, messages: Iterable[Message], section: str = "messages") -> MessageStore:
        """A store with one section holding ``messages``."""
        return cls(((section, messages),))

    # -- reading ---------------------------------------------------------------------

    @property
    def parameters(self) -> Mapping[str, Any]:
        """Key-value parameters (deeply immutable)."""
        return self._parameters

    @property
    def section_names(self) -> tuple[str, ...]:
        """The section names, in order."""
        return tuple([name for name, _ in self._sections])

    @property
    def sections(self) -> Mapping[str, Messages]:
        """The sections, in order, as a read-only mapping."""
        return MappingProxyType(dict(self._sections))

    def section(self, name: str) -> Messages:
        """The messages of a section (empty ``Messages`` when there is no such section)."""
        for n, ms in self._sections:
            if n == name:
                return ms
        return _EMPTY_MESSAGES

    def __contains__(self, name: object) -> bool:
        return any(n == name for n, _ in self._sections)

    def to_messages(self) -> Messages:
        """All sections' messages flattened, in section order."""
        items: list[Message] = []
        for _, ms in self._sections:
            items.extend(ms._items)
        return Messages._of(tuple(items))

    # -- building -------------------------------------------------------------------

    def with_section(self, name: str, messages: Iterable[Message]) -> MessageStore:
        """Set a section's messages (kept in place if it exists, else added at the end)."""
        _check_name(name)
        ms = _as_messages(messages, "messages")
        out = [(n, ms if n == name else old) for n, old in self._sections]
        if name not in self:
            out.append((name, ms))
        return self._of(tuple(out), self._parameters)

    def append_to(self, name: str, messages: Message | Iterable[Message]) -> MessageStore:
        """Append a message or messages to a section (created at the end when absent)."""
        more = _as_messages(messages, "messages")
        return self.with_section(name, self.section(name).extend(more))

    def remove_section(self, name: str) -> MessageStore:
        """Without the named section (the same store when there is none)."""
        if name not in self:
            return self
        return self._of(tuple([p for p in self._sections if p[0] != name]), self._parameters)

    def select(self, *names: str) -> MessageStore:
        """Only the named sections, in the order given (absent names are skipped)."""
        by_name = dict(self._sections)
        picked: list[tuple[str, Messages]] = []
        for name in dict.fromkeys(names):
            ms = by_name.get(name)
            if ms is not None:
                picked.append((name, ms))
        return self._of(tuple(picked), self._parameters)

    def with_parameters(
        self, parameters: Mapping[str, Any] | None = None, /, **more: Any
    ) -> MessageStore:
        """Parameters replaced by ``parameters`` (default: the current ones) plus ``more``."""
        base = dict(self._parameters if parameters is None else parameters)
        base.update(more)
        return self._of(self._sections, freeze_mapping(base, "parameters"))

    # -- value semantics --------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MessageStore):
            return self._sections == other._sections and self._parameters == other._parameters
        return NotImplemented

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            h = hash((self._sections, self._parameters))
            object.__setattr__(self, "_hash", h)
        return h

    def __repr__(self) -> str:
        sizes = ", ".join(f"{name!r}: {len(ms)}" for name, ms in self._sections)
        return f"MessageStore(sections={{{sizes}}}, parameters={len(self._parameters)})"

    # -- dict and JSON ---------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """``{"sections": [{"name", "messages"}...], "parameters": {...}}`` (empty parameters omitted)."""
        out: dict[str, Any] = {
            "sections": [{"name": n, "messages": ms.to_dicts()} for n, ms in self._sections]
        }
        if self._parameters:
            out["parameters"] = thaw(self._parameters)
        return out

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], registry: MessageRegistry | None = None
    ) -> MessageStore:
        """Decode :meth:`to_dict` output; DecodeError (with the path) on bad input, nothing else."""
        try:
            return _decode_store(cls, data, registry)
        except DecodeError:
            raise
        except Exception as exc:  # a misbehaving Mapping, a stack already deep: see _unexpected
            raise _unexpected(exc) from None

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON."""
        return dumps_compact(self.to_dict())

    @classmethod
    def from_json(cls, text: str | bytes, registry: MessageRegistry | None = None) -> MessageStore:
        """Decode :meth:`to_json` output."""
        return cls.from_dict(loads(text), registry)


def _decode_store(
    cls: type[MessageStore], data: Mapping[str, Any], registry: MessageRegistry | None
) -> MessageStore:
    """The store of a :meth:`MessageStore.to_dict` dict (``from_dict`` guards it)."""
    if not isinstance(data, Mapping):
        raise DecodeError(f"expected an object, got {json_type(data)}", "")
    for key in data:
        if key not in ("sections", "parameters"):
            raise DecodeError("unknown key; expected sections and parameters", str(key))
    raw = data.get("sections", [])
    if not isinstance(raw, (list, tuple)):
        raise DecodeError(f"expected an array, got {json_type(raw)}", "sections")
    sections: list[tuple[str, Messages]] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw):
        path = f"sections[{i}]"
        if not isinstance(entry, Mapping):
            raise DecodeError(f"expected an object, got {json_type(entry)}", path)
        for key in entry:
            if key not in ("name", "messages"):
                raise DecodeError("unknown key; expected name and messages", f"{path}.{key}")
        name = entry.get("name")
        if type(name) is not str or not name:
            raise DecodeError("section name must be a non-empty string", f"{path}.name")
        if name in seen:
            raise DecodeError("duplicate section name", f"{path}.name")
        seen.add(name)
        items = _decode_messages(entry.get("messages", []), f"{path}.messages", registry)
        sections.append((name, Messages._of(items)))
    params = data.get("parameters")
    try:
        frozen = EMPTY if params is None else freeze_mapping(params, "parameters")
    except MessageError as exc:
        raise DecodeError(exc.message, exc.path) from None
    except RecursionError:  # freezing stops at MAX_DEPTH, unless the stack was deep already
        raise DecodeError("nested too deeply", "parameters") from None
    return cls._of(tuple(sections), frozen)


_EMPTY_MESSAGES = Messages._of(())
