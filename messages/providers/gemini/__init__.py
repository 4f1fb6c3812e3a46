"""Google Gemini API (``generateContent`` / ``streamGenerateContent?alt=sse``), REST JSON.

The rules this provider applies, each documented here and in the README table of
what each provider cannot carry (every rule that loses something is a ``Loss``):

* Spelling: the REST API is proto3 JSON, which takes a field in lowerCamelCase
  (``functionCall``) or in its proto name (``function_call``); Google's REST samples
  send ``inline_data`` / ``system_instruction``, Vertex AI clients send proto names,
  and a google-genai object dumped with ``model_dump()`` has them. Requests,
  responses, streams and tools are read in both spellings; formatting writes
  lowerCamelCase. Parts kept verbatim (unknown kinds, extra fields) keep theirs.
* System and developer messages become ``systemInstruction`` (one text part per
  message; parts parsed from a request are kept in the provider's extras and
  re-sent verbatim). A system message after the conversation started is moved
  there too (Loss).
* ``contents`` alternate ``user`` / ``model``; consecutive messages of one role are
  merged into one content. Tool results become ``functionResponse`` parts of a
  user content, one per call, ordered like the calls they answer (Gemini pairs by
  id when present, else by name and order), so the answering turn has as many
  ``functionResponse`` parts as the model turn had ``functionCall`` parts. A result
  with no call in the preceding model turn, or a second result for one call, is
  dropped (Loss). A call left without a result when the next content starts (or
  the conversation ends after some of its results) is answered with an error
  response (``messages._repair.UNANSWERED_TEXT``, Loss); calls with no result at all
  at the very end are left pending (a tool may still be running).
* Tool-call ids: a wire id is kept and echoed on the ``functionResponse``. A call
  that came without one gets a stable derived id (``call_derived_`` + 24 hex
  digits, the prefix every provider here uses for ids the wire did not carry),
  keyed by the ``responseId``, the call's position and name; without a
  ``responseId`` (and for imported requests) also by its arguments (canonical JSON,
  sorted keys), so different calls never share one. Streaming and
  ``parse_response`` give a call the same id. A derived id is never sent to Gemini.
* Invalid calls (a name that breaks the name rule, arguments that are not a JSON
  object) travel with the message as ``InvalidToolCall``: from responses, streams
  and imported requests alike (a malformed ``functionCall`` in a request no longer
  fails the import), with their thought signature in ``extras``. Formatting sends
  one as a ``functionCall`` whose ``args`` is the object the raw text holds, or
  ``{}`` (Loss) when it holds none; its raw name when Gemini takes it (letters,
  digits, ``_ . : -``, up to 64), else a name of those characters (Loss). Its
  ``functionResponse`` pairs with it like any call's.
* Tool results: text goes as ``{"output": text}``, an error as ``{"error": text}``
  (parsing maps ``{"error": ...}`` back to ``is_error=True``); a text that writes a JSON
  object compactly (an MCP ``structuredContent``) goes as ``{"output": object}``, and a
  string read from Gemini goes back as a string. An object response
  that is neither is imported as its compact JSON text (kept state ``response:
  "object"``) and sent back as the object. Images, audio and files in a tool result
  are moved to parts after the function responses (Loss).
* Opaque state is tagged with the provider's ``tag`` (``gemini``, or
  ``gemini@origin`` for ``get_provider("gemini", origin=...)``: the Gemini API and
  Vertex AI reject each other's signatures). ``thoughtSignature`` on a
  ``functionCall`` part is kept in the call's ``extras[tag]["thought_signature"]``
  and sent back on that exact part; on a thought part it is the ReasoningPart's
  signature (``provider=tag``); on an answer text part it is kept in the message's
  ``extras[tag]["text_signature"]`` and sent back on the last text part. All of it
  is replayed only to the same tag: other providers' and other origins' reasoning
  and state are dropped (Loss), never turned into visible text.
* Calls this provider did not make (no state under its tag, and another
  provider's state or an id of their own) get the documented dummy
  ``thoughtSignature`` ``"skip_thought_signature_validator"`` on the first
  ``functionCall`` part of each model content of the current turn (after the last
  user content that is not only function responses), which Gemini 3 validates.
  Nothing is lost, so no Loss. Calls Gemini sent without an id (derived ids) or
  without a signature in an imported request (``calls_unsigned``) go back as they
  came.
* Empty text is never sent, except that a user content with nothing else becomes
  ``{"text": ""}`` (the API takes it), so the turn is kept; an empty model content
  is omitted (Loss). Image ``detail`` and file names have no Gemini field (Loss).
  Images by URL go as ``fileData`` (Gemini fetches Files API / Cloud Storage URIs,
  public and signed https URLs); a URL without a media type gets one from its
  extension, else ``image/jpeg``. A file id that is not a URI (another provider's,
  e.g. ``file_011...``) is dropped (Loss); its inline data, if any, is sent
  instead.
* Tool schemas: Gemini accepts an OpenAPI subset. ``type: [x, "null"]`` and
  ``anyOf``/``oneOf`` with a null branch become ``nullable``; a single-branch
  ``anyOf`` is inlined; ``oneOf`` becomes ``anyOf`` (Loss); a string ``const``
  becomes a one-value ``enum``; local ``$ref`` are inlined (a recursive one
  becomes ``{"type": "object"}``, Loss); annotations (``$schema``, ``examples``...)
  are dropped silently; every other keyword Gemini rejects (``additionalProperties``,
  ``exclusiveMinimum``, ``multipleOf``, ``patternProperties``, unsupported
  ``format`` values, non-string ``enum``...) is dropped (Loss). Gemini has no strict
  mode: ``additionalProperties: false`` (what ``strict`` adds) is omitted without a
  Loss, as the ``strict`` flag is for Groq and vLLM; it narrows only what the model may
  send, and ``ToolDefinition.validate_arguments`` still enforces it on the calls that
  come back. A tool without properties is sent
  without ``parameters`` (Gemini rejects an empty object schema). A schema with
  a free-form object (a map such as ``dict[str, str]``: an object without
  properties below the root, or a root with ``additionalProperties`` and no
  properties), which ``parameters`` cannot express ("properties: should be
  non-empty for OBJECT type"), is sent whole and unchanged as
  ``parametersJsonSchema`` (JSON Schema; generateContent, not the Live API).
  An ``enum`` holding ``null`` keeps its strings and becomes ``nullable``.
* Unknown part kinds met while parsing are kept in the provider's extras
  (``unknown``: index, path, type, the part) and re-inserted at their index when
  formatting for the same tag again; other providers drop them (Loss). A response
  with unknown parts keeps its text and thought parts separate and in wire order (a
  stream: one part per run of fragments) so they go back around the unknown ones as
  they came. Fields of a known part that the canonical model has no field for
  (``videoMetadata``, ``partMetadata``, a blob's ``displayName``...) are kept
  (``keys``) and put back on the part at the same index.
* Cache hints (``Message.cache``) are a Loss: Gemini caches prompt prefixes
  implicitly, and an explicit cache is a ``cachedContents`` resource made apart
  from the request, not a breakpoint in it.

The package: ``_wire`` (spellings, readers, ids, kept state), ``_format`` (requests)
with ``_parts`` (content parts as request parts), ``_parse`` (model turns and response
bodies), ``_import`` (request bodies), ``_stream`` (streams), ``_tools`` (schemas both
ways), ``_provider`` (the object).
"""

from __future__ import annotations

from ._format import DUMMY_SIGNATURE
from ._provider import PROVIDER, GeminiProvider
from ._stream import GeminiStream
from ._wire import FINISH_REASONS, NAME

__all__ = [
    "DUMMY_SIGNATURE",
    "FINISH_REASONS",
    "NAME",
    "PROVIDER",
    "GeminiProvider",
    "GeminiStream",
]
