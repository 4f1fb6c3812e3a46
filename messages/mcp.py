"""Model Context Protocol tool results and tool definitions, as plain dicts.

No MCP dependency: what an MCP client library returns for ``tools/call`` and
``tools/list`` (as dicts, e.g. ``result.model_dump(by_alias=True)`` or the JSON-RPC
``result`` member) goes in, and what an MCP server sends comes out.

* :func:`tool_result_from_mcp` turns a ``tools/call`` result into a :class:`ToolResult`.
  Every content kind is kept: ``text`` as a TextPart, ``image`` as an ImagePart, ``audio``
  as an AudioPart, an embedded ``resource`` as a TextPart (text contents) or as an
  image, audio or file part (blob contents), a ``resource_link`` as an ImagePart by
  URL (an http(s) image) or else as a TextPart that names the link.
  ``structuredContent`` is kept as the JSON text of the result, written compactly (in
  place of the text content an MCP server is asked to send beside it), which the
  providers that take JSON in a tool result (bedrock, gemini, gemini_interactions) send
  as an object; ``isError`` as ``is_error``.
* :func:`tool_definitions_from_mcp` turns a ``tools/list`` result into ToolDefinitions.
* :func:`to_mcp_result` and :func:`to_mcp_tool` go the other way, for a server
  written with this library.
* :func:`mcp_tools` pairs each listed tool with a callable that forwards the call to
  an MCP session, to put in a :class:`~messages.tools.Toolbox`.

What a ToolResult or ToolDefinition has no place for (annotations, ``_meta``, a
resource's URI, a tool's ``outputSchema``) is reported as a
:class:`~messages.providers.Loss` per item: a ``LossWarning`` (``on_loss="warn"``, the
default), nothing (``"ignore"``), or a ``LossError`` before anything is returned
(``"raise"``), as the providers' formatters do.
"""

from __future__ import annotations

import inspect
import json
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from ._audio import audio_format, audio_mime_type
from ._fields import tool_name_ok
from ._parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from ._tool_result import ToolResult
from .errors import DecodeError, MessageError, ident
from .tools._tool_definition import ToolDefinition

__all__ = [
    "MCP_PROTOCOL_VERSION",
    "mcp_tools",
    "to_mcp_result",
    "to_mcp_tool",
    "tool_definitions_from_mcp",
    "tool_result_from_mcp",
]

MCP_PROTOCOL_VERSION = "2025-11-25"
"""The MCP specification revision whose ``CallToolResult`` and ``Tool`` shapes this module reads and writes."""

#: The keys of a ``Tool`` a ToolDefinition carries; the others are reported.
_TOOL_KEYS = frozenset({"name", "description", "inputSchema", "title"})


class _Losses:
    """The losses of one conversion, reported at the end as ``on_loss`` says."""

    def __init__(self, on_loss: str) -> None:
        if on_loss not in ("warn", "ignore", "raise"):
            raise DecodeError("on_loss must be 'warn', 'ignore' or 'raise'", "on_loss")
        self.on_loss = on_loss
        self.items: list[Any] = []

    def add(self, path: str, what: str, rule: str) -> None:
        from .providers import Loss

        self.items.append(Loss(path, what, rule))

    def report(self) -> None:
        from .providers import LossWarning

        if not self.items or self.on_loss == "ignore":
            return
        if self.on_loss == "raise":
            from . import errors

            first = self.items[0]
            raise errors.LossError(
                f"mcp: cannot carry {first.what} ({first.rule}); {len(self.items)} loss(es) in all",
                first.path,
                tuple(self.items),
            )
        for loss in self.items:
            warnings.warn(LossWarning(f"mcp: {loss}"), stacklevel=4)


# -- tools/call results -----------------------------------------------------------------------


def tool_result_from_mcp(
    result: Mapping[str, Any],
    call_id: str,
    tool_name: str | None = None,
    *,
    on_loss: str = "warn",
) -> ToolResult:
    """The ToolResult of an MCP ``tools/call`` result (a ``CallToolResult`` dict).

    ``call_id`` and ``tool_name`` name the model's call it answers. DecodeError, naming
    the path, when ``result`` is not a CallToolResult.
    """
    losses = _Losses(on_loss)
    try:
        made = _result(result, call_id, tool_name, losses)
    except MessageError as exc:
        raise DecodeError(exc.message, exc.path) from None
    except (TypeError, ValueError, KeyError, AttributeError):
        raise DecodeError("malformed MCP tool result", "$") from None
    losses.report()
    return made


def _result(result: Any, call_id: str, tool_name: str | None, losses: _Losses) -> ToolResult:
    if not isinstance(result, Mapping):
        raise DecodeError(f"expected a CallToolResult object, got {type(result).__name__}", "$")
    is_error = result.get("isError", False)
    if type(is_error) is not bool:
        raise DecodeError(f"expected a bool, got {type(is_error).__name__}", "isError")
    blocks = result.get("content", [])
    if not isinstance(blocks, list):
        raise DecodeError(f"expected an array, got {type(blocks).__name__}", "content")
    parts = [p for i, b in enumerate(blocks) if (p := _part(b, f"content[{i}]", losses))]
    structured = result.get("structuredContent")
    if structured is not None:
        parts = _with_structured(structured, parts)
    if "_meta" in result:
        losses.add("_meta", "the result's _meta", "not kept: a tool result has no place for it")
    content: str | list[ContentPart] = parts
    if not parts:
        content = ""
    elif len(parts) == 1 and isinstance(parts[0], TextPart):
        content = parts[0].text
    return ToolResult(call_id, content, is_error, tool_name)


def _with_structured(structured: Any, parts: list[ContentPart]) -> list[ContentPart]:
    """``parts`` with the JSON text of ``structuredContent``, written compactly: in place
    of the text part that already holds it (MCP asks servers to send one), else as a new
    first part. Bedrock, Gemini and the Interactions API then get it as an object."""
    if not isinstance(structured, Mapping):
        raise DecodeError(
            f"expected an object, got {type(structured).__name__}", "structuredContent"
        )
    value = dict(structured)
    try:  # written compactly: the form the providers that take JSON send as an object
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        raise DecodeError("expected a JSON object", "structuredContent") from None
    for k, p in enumerate(parts):
        if type(p) is TextPart and _same_json(_json_value(p.text), value):
            return [*parts[:k], TextPart(text), *parts[k + 1 :]]
    return [TextPart(text), *parts]


def _json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than it can be read
        return None


def _same_json(a: Any, b: Any) -> bool:
    """Whether two decoded JSON values are the same JSON (``1``, ``1.0`` and ``true``
    are equal in Python, not in JSON)."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False


def _part(block: Any, path: str, losses: _Losses) -> ContentPart | None:
    """One content block as a part (None: reported as a loss)."""
    if not isinstance(block, Mapping):
        raise DecodeError(f"expected a content object, got {type(block).__name__}", path)
    kind = block.get("type")
    if not isinstance(kind, str) or kind not in _READERS:
        losses.add(
            path, f"a content block of type {ident(kind)}", "dropped: unknown to MCP 2025-11-25"
        )
        return None
    for key in ("annotations", "_meta"):
        if key in block:
            losses.add(
                f"{path}.{key}", f"the block's {key}", "not kept: a part has no place for it"
            )
    others = [k for k in block if k not in _BLOCK_KEYS[kind] and k not in ("annotations", "_meta")]
    if others:  # a link's size and icons, or keys MCP 2025-11-25 does not define
        names = ", ".join(ident(k) for k in others[:8]) + (", ..." if len(others) > 8 else "")
        losses.add(path, f"the block's keys {names}", "not kept: a part has no place for them")
    return _READERS[kind](block, path, losses)


#: The keys of each content block that its part keeps (``annotations`` and ``_meta``
#: are reported on their own).
_BLOCK_KEYS: Final[dict[str, frozenset[str]]] = {
    "text": frozenset(("type", "text")),
    "image": frozenset(("type", "data", "mimeType")),
    "audio": frozenset(("type", "data", "mimeType")),
    "resource": frozenset(("type", "resource")),
    "resource_link": frozenset(("type", "uri", "name", "title", "description", "mimeType")),
}


def _text(block: Mapping[str, Any], path: str, losses: _Losses) -> ContentPart:
    return TextPart(_field(block, "text", path))


def _image(block: Mapping[str, Any], path: str, losses: _Losses) -> ContentPart:
    return ImagePart(data=_field(block, "data", path), media_type=_field(block, "mimeType", path))


def _audio(block: Mapping[str, Any], path: str, losses: _Losses) -> ContentPart:
    return AudioPart(_field(block, "data", path), audio_format(_field(block, "mimeType", path)))


def _resource(block: Mapping[str, Any], path: str, losses: _Losses) -> ContentPart:
    """An embedded resource: its text, or its blob as an image, audio or file part."""
    res = block.get("resource")
    where = f"{path}.resource"
    if not isinstance(res, Mapping):
        raise DecodeError(f"expected a resource object, got {type(res).__name__}", where)
    uri = _field(res, "uri", where)
    mime = _optional_field(res, "mimeType", where)
    for key in ("annotations", "_meta"):
        if key in res:
            losses.add(
                f"{where}.{key}", f"the resource's {key}", "not kept: a part has no place for it"
            )
    if "text" in res:
        losses.add(f"{where}.uri", "the resource's URI", "not kept: its text is kept as text")
        return TextPart(_field(res, "text", where))
    blob = _field(res, "blob", where)
    if mime is not None and mime.startswith("image/"):
        losses.add(f"{where}.uri", "the resource's URI", "not kept: its image is kept")
        return ImagePart(data=blob, media_type=mime)
    if mime is not None and mime.startswith("audio/"):
        losses.add(f"{where}.uri", "the resource's URI", "not kept: its audio is kept")
        return AudioPart(blob, audio_format(mime))
    return FilePart(data=blob, filename=uri, media_type=mime)


def _link(block: Mapping[str, Any], path: str, losses: _Losses) -> ContentPart:
    """A resource link: an http(s) image by URL, else a line of text naming the link."""
    uri = _field(block, "uri", path)
    name = _field(block, "name", path)
    mime = _optional_field(block, "mimeType", path)
    title = _optional_field(block, "title", path)
    description = _optional_field(block, "description", path)
    if mime is not None and mime.startswith("image/") and uri.startswith(("https://", "http://")):
        said = [k for k in ("name", "title", "description") if block.get(k) is not None]
        what = f"the link's {', '.join(said)}"
        losses.add(path, what, "not kept: the image is kept by URL")
        return ImagePart(url=uri, media_type=mime)
    label = title or name
    text = f"Resource link: {label} <{uri}>"
    if mime is not None:
        text += f" ({mime})"
    if description:
        text += f": {description}"
    return TextPart(text)


_READERS: dict[str, Callable[[Mapping[str, Any], str, _Losses], ContentPart]] = {
    "text": _text,
    "image": _image,
    "audio": _audio,
    "resource": _resource,
    "resource_link": _link,
}


def _field(obj: Mapping[str, Any], key: str, path: str) -> str:
    value = obj.get(key)
    if type(value) is not str:
        raise DecodeError(f"expected a str, got {type(value).__name__}", f"{path}.{key}")
    return value


def _optional_field(obj: Mapping[str, Any], key: str, path: str) -> str | None:
    return None if obj.get(key) is None else _field(obj, key, path)


# -- tools/list results ----------------------------------------------------------------------


def tool_definitions_from_mcp(
    result: Mapping[str, Any] | Iterable[Mapping[str, Any]], *, on_loss: str = "warn"
) -> tuple[ToolDefinition, ...]:
    """The ToolDefinitions of an MCP ``tools/list`` result (or its ``tools`` list).

    Each tool keeps its name, description (its title, else its name, when it has none)
    and ``inputSchema`` exactly as given (``strict=False``: MCP schemas are not closed).
    A tool whose name providers refuse (MCP allows ``.``; providers take letters,
    digits, ``_`` and ``-``, at most 64) is left out and reported as a Loss, as
    ``on_loss`` says; a malformed tool (a schema that is not an object schema, a field
    of the wrong type) is a DecodeError naming the path.
    """
    losses = _Losses(on_loss)
    if isinstance(result, Mapping):
        tools, prefix = result.get("tools"), "tools"
    else:
        tools, prefix = result, ""
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Iterable):
        raise DecodeError(f"expected an array of tools, got {type(tools).__name__}", prefix or "$")
    made = [_tool(t, f"{prefix}[{i}]", losses) for i, t in enumerate(tools)]
    losses.report()
    return tuple(d for d in made if d is not None)


def _tool(tool: Any, path: str, losses: _Losses) -> ToolDefinition | None:
    """One tool's definition; None for a name providers refuse (reported as a loss)."""
    if not isinstance(tool, Mapping):
        raise DecodeError(f"expected a tool object, got {type(tool).__name__}", path)
    name = _field(tool, "name", path)
    if not tool_name_ok(name):
        rule = "dropped: tool names are letters, digits, _ and - (at most 64)"
        losses.add(f"{path}.name", f"the tool {ident(name)}", rule)
        return None
    description = _optional_field(tool, "description", path)
    title = _optional_field(tool, "title", path)
    if description is not None and title is not None and title != name:
        losses.add(f"{path}.title", "the tool's title", "not kept: the description is sent")
    for key in sorted(k for k in tool if k not in _TOOL_KEYS):
        losses.add(
            f"{path}.{key}", f"the tool's {key}", "not kept: a ToolDefinition has no place for it"
        )
    schema = tool.get("inputSchema")
    if not isinstance(schema, Mapping):
        raise DecodeError(f"expected an object, got {type(schema).__name__}", f"{path}.inputSchema")
    text = description if description and description.strip() else (title or name)
    try:
        return ToolDefinition(name, text, schema, strict=False)
    except MessageError as exc:
        field = exc.path
        if field == "parameters" or field.startswith(("parameters.", "parameters[")):
            field = "inputSchema" + field[len("parameters") :]
        raise DecodeError(exc.message, f"{path}.{field}") from None


# -- the other way: a server written with this library -----------------------------------------


def to_mcp_result(result: ToolResult | Any) -> dict[str, Any]:
    """An MCP ``CallToolResult`` dict for a ToolResult (or a ToolResultMessage).

    Text, image and audio parts become ``text``, ``image`` and ``audio`` blocks; an image
    by URL a ``resource_link``; a file part an embedded ``resource`` (its data) or a
    ``resource_link`` (a file id). When exactly one text part holds a JSON object, the
    object is also sent as ``structuredContent``, beside its text block, as MCP asks.
    """
    content = result.content
    parts: tuple[Any, ...] = (TextPart(content),) if type(content) is str else tuple(content)
    out: dict[str, Any] = {"content": [_block(p) for p in parts]}
    objects = [v for p in parts if type(p) is TextPart and type(v := _json_value(p.text)) is dict]
    if len(objects) == 1:
        out["structuredContent"] = objects[0]
    out["isError"] = bool(result.is_error)
    return out


def _block(part: Any) -> dict[str, Any]:
    if type(part) is TextPart:
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        if part.data is not None:
            return {"type": "image", "data": part.data, "mimeType": part.media_type or "image/png"}
        return _link_block(part.url or "", part.media_type)
    if isinstance(part, AudioPart):
        return {"type": "audio", "data": part.data, "mimeType": audio_mime_type(part.format)}
    if isinstance(part, FilePart):
        if part.data is None:
            return _link_block(part.file_id or "", part.media_type, part.filename)
        uri = (
            part.filename
            if part.filename and ":" in part.filename
            else f"file:///{part.filename or 'attachment'}"
        )
        resource: dict[str, Any] = {"uri": uri, "blob": part.data}
        if part.media_type:
            resource["mimeType"] = part.media_type
        return {"type": "resource", "resource": resource}
    return {"type": "text", "text": part.text}


def _link_block(uri: str, mime: str | None, name: str | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "resource_link", "uri": uri}
    block["name"] = name or uri.rstrip("/").rpartition("/")[2] or uri
    if mime:
        block["mimeType"] = mime
    return block


def to_mcp_tool(definition: ToolDefinition) -> dict[str, Any]:
    """An MCP ``Tool`` dict for a ToolDefinition: name, description and ``inputSchema``
    (closed everywhere when the definition is ``strict``, as its arguments are checked)."""
    return {
        "name": definition.name,
        "description": definition.description,
        "inputSchema": definition.wire_parameters(),
    }


# -- MCP tools in a Toolbox --------------------------------------------------------------------


def mcp_tools(
    result: Mapping[str, Any] | Iterable[Mapping[str, Any]],
    call: Callable[[str, dict[str, Any]], Any],
    *,
    on_loss: str = "warn",
) -> list[tuple[ToolDefinition, Callable[..., Any]]]:
    """``(definition, function)`` pairs for a :class:`~messages.tools.Toolbox`, one per tool
    of a ``tools/list`` result, each forwarding its call to ``call(name, arguments)``.

    ``call`` returns the ``tools/call`` result as a dict (e.g. a session's
    ``call_tool(name, arguments)`` result dumped to a dict); when it is a coroutine
    function the tools are too (run them with ``Toolbox.arun``). The result comes back
    as a ToolResult with every content kind kept, ``isError`` included::

        toolbox = Toolbox(mcp_tools(listing, lambda name, args: session_call(name, args)))
    """
    return [
        (d, _forwarder(d.name, call, on_loss))
        for d in tool_definitions_from_mcp(result, on_loss=on_loss)
    ]


def _forwarder(
    name: str, call: Callable[[str, dict[str, Any]], Any], on_loss: str
) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(call):

        async def forward_async(**arguments: Any) -> ToolResult:
            return tool_result_from_mcp(await call(name, arguments), "mcp", name, on_loss=on_loss)

        return forward_async

    def forward(**arguments: Any) -> ToolResult:
        return tool_result_from_mcp(call(name, arguments), "mcp", name, on_loss=on_loss)

    return forward
