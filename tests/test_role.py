"""MessageRole: values, codes and parsing (FR-004a-01..10)."""

from __future__ import annotations

import pytest

from messages import MessageRole, ValidationError


def test_members_values_and_codes() -> None:
    assert [(r.name, r.value, r.code) for r in MessageRole] == [
        ("SYSTEM", "system", 0),
        ("DEVELOPER", "developer", 1),
        ("USER", "user", 2),
        ("ASSISTANT", "assistant", 3),
        ("TOOL", "tool", 4),
    ]


def test_codes_are_dense_and_unique() -> None:
    assert sorted(r.code for r in MessageRole) == list(range(len(MessageRole)))


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("system", MessageRole.SYSTEM),
        ("SYSTEM", MessageRole.SYSTEM),
        ("  User ", MessageRole.USER),
        ("assistant", MessageRole.ASSISTANT),
        ("Tool\n", MessageRole.TOOL),
        ("developer", MessageRole.DEVELOPER),
        ("DeVeLoPeR", MessageRole.DEVELOPER),
    ],
)
def test_parse_is_case_insensitive_and_strips(text: str, role: MessageRole) -> None:
    assert MessageRole.parse(text) is role


@pytest.mark.parametrize("role", list(MessageRole))
def test_parse_accepts_members(role: MessageRole) -> None:
    assert MessageRole.parse(role) is role


@pytest.mark.parametrize("bad", ["", "bot", "function", "users", "sys tem", 3, None, b"user"])
def test_parse_rejects_anything_else_listing_valid_roles(bad: object) -> None:
    with pytest.raises(ValidationError) as info:
        MessageRole.parse(bad)  # type: ignore[arg-type]
    text = str(info.value)
    for r in MessageRole:
        assert r.value in text


def test_unknown_role_error_does_not_echo_input(secret: str) -> None:
    with pytest.raises(ValidationError) as info:
        MessageRole.parse(secret)
    assert secret not in str(info.value)


def test_str_is_wire_value() -> None:
    assert str(MessageRole.TOOL) == "tool"
