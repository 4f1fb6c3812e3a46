"""Content parts: validation, data URLs, immutability, hashing and reprs."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import AudioPart, FilePart, ImagePart, ReasoningPart, TextPart, ValidationError


def test_text_part() -> None:
    p = TextPart("hello")
    assert p.text == "hello"
    assert TextPart("") == TextPart("")
    assert hash(TextPart("a")) == hash(TextPart("a"))


@pytest.mark.parametrize("bad", [None, 1, b"x", ["x"]])
def test_text_part_rejects_non_str(bad: object) -> None:
    with pytest.raises(ValidationError, match="text"):
        TextPart(bad)  # type: ignore[arg-type]


def test_image_by_url() -> None:
    p = ImagePart(url="https://example.com/cat.png", detail="high")
    assert p.is_url
    assert p.data_url == "https://example.com/cat.png"


def test_image_by_data() -> None:
    p = ImagePart(data="iVBORw0KGgo=", media_type="image/png")
    assert not p.is_url
    assert p.data_url == "data:image/png;base64,iVBORw0KGgo="


def test_image_data_url_round_trip() -> None:
    url = "data:image/jpeg;base64,/9j/4AAQSkZJRg=="
    p = ImagePart.from_data_url(url)
    assert (p.data, p.media_type) == ("/9j/4AAQSkZJRg==", "image/jpeg")
    assert p.data_url == url
    assert ImagePart.from_data_url(p.data_url) == p


def test_from_data_url_keeps_detail() -> None:
    assert ImagePart.from_data_url("data:image/png;base64,AA==", detail="low").detail == "low"


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"url": "https://x", "data": "AA==", "media_type": "image/png"},
        {"data": "AA=="},
        {"data": "AA==", "media_type": ""},
        {"url": ""},
        {"data": "data:image/png;base64,AA==", "media_type": "image/png"},
        {"url": "https://x", "detail": "ultra"},
        {"url": 5},
    ],
)
def test_image_rules(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ImagePart(**kwargs)


@pytest.mark.parametrize(
    "url",
    ["https://x/y.png", "data:image/png,AAAA", "data:;base64,AAAA", "data:image/png;base64"],
)
def test_from_data_url_rejects_non_base64_data_urls(url: str) -> None:
    with pytest.raises(ValidationError):
        ImagePart.from_data_url(url)


@pytest.mark.parametrize("media_type", ["a,b", "image/png,x", "50%", "a%2Cb", "x,%,y"])
def test_a_media_type_a_data_url_cannot_hold_as_it_is_is_percent_encoded(media_type: str) -> None:
    p = ImagePart(data="AAAA", media_type=media_type)
    assert p.data_url.count(",") == 1  # the separator only
    assert ImagePart.from_data_url(p.data_url) == p


def test_a_percent_sequence_the_package_does_not_write_is_kept_as_it_is() -> None:
    # only %2C and %25 are the package's escapes: any other stays, so rounds agree
    p = ImagePart.from_data_url("data:image/png%3Bx;base64,AAAA")
    assert p.media_type == "image/png%3Bx"
    assert ImagePart.from_data_url(p.data_url) == p
    assert ImagePart.from_data_url("data:x%FFy;base64,AA==").media_type == "x%FFy"


@given(
    st.text(min_size=1).filter(lambda t: ";" not in t and t.strip() == t),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="),
)
def test_any_media_type_without_parameters_survives_a_data_url(media_type: str, data: str) -> None:
    p = ImagePart(data=data, media_type=media_type)
    assert ImagePart.from_data_url(p.data_url) == p


def test_audio_part() -> None:
    p = AudioPart("UklGRg==", "wav")
    assert p.format == "wav"
    with pytest.raises(ValidationError):
        AudioPart("UklGRg==", "")
    with pytest.raises(ValidationError):
        AudioPart(None, "wav")  # type: ignore[arg-type]


def test_file_part_needs_data_or_file_id() -> None:
    assert FilePart(file_id="file-abc").file_id == "file-abc"
    assert (
        FilePart(data="JVBERi0=", filename="a.pdf", media_type="application/pdf").filename
        == "a.pdf"
    )
    with pytest.raises(ValidationError):
        FilePart(filename="a.pdf")
    with pytest.raises(ValidationError):
        FilePart(file_id="")


def test_reasoning_part() -> None:
    p = ReasoningPart("let me think", signature="EqQBCkgI", provider="anthropic")
    assert not p.redacted
    r = ReasoningPart("opaque-blob", redacted=True, provider="anthropic")
    assert r.redacted
    with pytest.raises(ValidationError):
        ReasoningPart("x", redacted=1)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ReasoningPart("x", signature=5)  # type: ignore[arg-type]


PARTS = [
    TextPart("x"),
    ImagePart(url="https://x"),
    ImagePart(data="AA==", media_type="image/png"),
    AudioPart("AA==", "mp3"),
    FilePart(file_id="f"),
    ReasoningPart("r", "s", False, "gemini"),
]


@pytest.mark.parametrize("part", PARTS, ids=lambda p: type(p).__name__)
def test_parts_are_frozen_slotted_hashable(part: Any) -> None:
    assert dataclasses.is_dataclass(part)
    assert not hasattr(part, "__dict__")
    hash(part)
    field = dataclasses.fields(part)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(part, field, "changed")


@pytest.mark.parametrize(
    "make",
    [
        lambda s: TextPart(s),
        lambda s: ImagePart(url="https://x/" + s),
        lambda s: ImagePart(data=s, media_type="image/png"),
        lambda s: AudioPart(s, "wav"),
        lambda s: FilePart(data=s, filename="f.txt"),
        lambda s: ReasoningPart(s, signature=s),
    ],
)
def test_part_reprs_hide_content(make: Any, secret: str) -> None:
    assert secret not in repr(make(secret))


def test_image_given_as_data_url_is_stored_as_inline_data() -> None:
    p = ImagePart(url="data:image/png;base64,AA==", detail="low")
    assert (p.url, p.data, p.media_type, p.detail) == (None, "AA==", "image/png", "low")
    assert p == ImagePart.from_data_url("data:image/png;base64,AA==", detail="low")
    assert ImagePart(url="data:text/plain,hello").url == "data:text/plain,hello"


def test_url_image_keeps_media_type() -> None:
    p = ImagePart(url="gs://bucket/x.png", media_type="image/png")
    assert p.media_type == "image/png"
    assert ImagePart.from_dict(p.to_dict()) == p


# -- a data: URL given as url, with a media_type beside it --------------------------------


def test_media_type_contradicting_the_data_url_is_refused() -> None:
    with pytest.raises(ValidationError) as info:
        ImagePart(url="data:image/png;base64,AAAA", media_type="image/jpeg")
    assert info.value.path == "media_type"
    assert "AAAA" not in str(info.value)


@pytest.mark.parametrize("given", ["image/png", "IMAGE/PNG", " image/png "])
def test_media_type_agreeing_with_the_data_url_is_accepted(given: str) -> None:
    p = ImagePart(url="data:image/png;base64,AAAA", media_type=given)
    assert (p.url, p.data, p.media_type) == (None, "AAAA", "image/png")  # the URL's spelling
    assert p == ImagePart.from_data_url("data:image/png;base64,AAAA")


def test_media_type_beside_a_url_that_is_not_base64_is_kept() -> None:
    # not inline data: nothing to contradict, the URL is kept as it is
    p = ImagePart(url="data:text/plain,hello", media_type="image/png")
    assert (p.url, p.data, p.media_type) == ("data:text/plain,hello", None, "image/png")


def test_decoder_refuses_the_same_contradiction() -> None:
    from messages import DecodeError

    bad = {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,AA==", "media_type": "image/gif"},
    }
    with pytest.raises(DecodeError) as info:
        ImagePart.from_dict(bad)
    assert info.value.path == "image_url.media_type"
    ok = {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,AA==", "media_type": "image/png"},
    }
    assert ImagePart.from_dict(ok) == ImagePart.from_data_url("data:image/png;base64,AA==")
    with pytest.raises(DecodeError) as info:
        ImagePart.from_dict(
            {"type": "image_url", "image_url": {"url": "data:x;base64,AA==", "media_type": 5}}
        )
    assert info.value.path == "image_url.media_type"


_media_types = st.sampled_from(["image/png", "image/jpeg", " image/webp", "application/pdf", "x"])
_params = st.lists(
    st.sampled_from(["charset=utf-8", "name=a.png", " base64", "BASE64"]), max_size=3
)
_payloads = st.text(alphabet="ABCDEFabcdef0123456789+/=:,;", max_size=20)


@given(_media_types, _params, _payloads, st.sampled_from([None, "auto", "low", "high"]))
def test_image_from_a_data_url_equals_from_data_url(
    media: str, params: list[str], payload: str, detail: str | None
) -> None:
    url = f"data:{';'.join([media, *params])},{payload}"
    try:
        expected = ImagePart.from_data_url(url, detail=detail)
    except ValidationError:
        return  # not an inline image: nothing to compare (the URL path keeps or refuses it)
    assert ImagePart(url=url, detail=detail) == expected
    assert ImagePart(url=url, media_type=expected.media_type, detail=detail) == expected
    assert ImagePart.from_dict(ImagePart(url=url, detail=detail).to_dict()) == expected
