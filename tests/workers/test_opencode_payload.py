"""payload.json is a valid body for OpenCode Server's POST /session/{id}/message (v1.18.33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

jsonschema = pytest.importorskip("jsonschema")

OPENAPI = (
    Path(__file__).resolve().parents[3] / "shared" / "reference" / "opencode-1.18.33-openapi.json"
)
ENDPOINT = "/session/{sessionID}/message"


@pytest.fixture(scope="module")
def request_validator():
    if not OPENAPI.exists():
        pytest.skip(f"the OpenCode OpenAPI reference is not beside the repository ({OPENAPI})")
    document = json.loads(OPENAPI.read_text(encoding="utf-8"))
    schema = document["paths"][ENDPOINT]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    # Resolve "#/components/..." references against the whole OpenAPI document.
    schema = {**schema, "components": document["components"]}
    return jsonschema.Draft202012Validator(schema)


def test_every_payload_of_the_basic_example_validates(request_validator, example_copy, hotplex):
    root = example_copy("basic")
    result = hotplex("-C", str(root), "build", "--json")
    assert result.status == 0, result.stderr
    payloads = [
        a
        for a in json.loads(result.stdout)["artifacts"]
        if a["worker"] == "opencode-server" and a["path"].endswith("/payload.json")
    ]
    assert len(payloads) == 3
    for artifact in payloads:
        body = json.loads((root / artifact["path"]).read_text(encoding="utf-8"))
        errors = sorted(request_validator.iter_errors(body), key=str)
        assert not errors, [e.message for e in errors]
        assert body["system"].startswith("<agent-configuration>\n")
        prompt = root / artifact["path"].replace("/ocs/", "/cc/").replace(
            "payload.json", "prompt.xml"
        )
        assert body["system"] == prompt.read_text(encoding="utf-8"), (
            "both workers get the same document"
        )


def test_a_message_with_parts_added_still_validates(request_validator, example_copy, hotplex):
    root = example_copy("basic")
    assert hotplex("-C", str(root), "build").status == 0
    body = json.loads((root / "dist/ocs/slack/payload.json").read_text(encoding="utf-8"))
    body["parts"] = [{"type": "text", "text": "hello"}]
    body["noReply"] = True
    assert not list(request_validator.iter_errors(body))
    body["sytem"] = "typo"
    assert list(request_validator.iter_errors(body)), "the schema rejects unknown keys"


@pytest.mark.parametrize(
    "text",
    ["", "plain", 'quotes " and \\ backslash', "tab\tnew\nline\r\x00\x1f", "é ☺ \u2028 \ud7ff 😀"],
)
def test_the_payload_is_what_the_json_dump_gives_byte_for_byte(text: str) -> None:
    from hotplex.targets.opencode_server import OpenCodeServer
    from hotplex.worker import json_bytes

    assert OpenCodeServer().document_bytes(text.encode()) == json_bytes(
        {"parts": [], "system": text}
    )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from('ab"\\\n\t\r\x00\x08\x0c\x1f\x7f é…☺😀\u2028')))
def test_any_text_is_escaped_as_the_json_encoder_escapes_it(text: str) -> None:
    """The payload escapes the document's bytes; the encoder escapes its characters: the same
    bytes, a control the replacements leave to the encoder or not."""
    from hotplex.targets.opencode_server import OpenCodeServer
    from hotplex.worker import json_bytes

    assert OpenCodeServer().document_bytes(text.encode()) == json_bytes(
        {"parts": [], "system": text}
    )
