"""Every generated ``payload.json`` is accepted by a real OpenCode Server, which stores its
``system`` string byte for byte.

The gateway fills ``parts`` per message; here the test adds one text part (a message needs one)
and ``"noReply": true`` so the server stores the user message without calling any model.
"""

import json

import pytest

pytestmark = pytest.mark.integration

PROBE_TEXT = "hotplex integration probe"


def message_body(payload: dict) -> dict:
    """The artifact as the gateway would send it, plus what this test needs."""
    body = dict(payload)
    body["parts"] = [*payload.get("parts", []), {"type": "text", "text": PROBE_TEXT}]
    body["noReply"] = True
    return body


def test_opencode_stores_system_byte_identical(opencode_server, opencode_payload):
    payload = json.loads(opencode_payload.path.read_bytes().decode("utf-8"))
    assert isinstance(payload.get("system"), str), "payload.json has no string 'system'"
    assert payload["system"].startswith("<agent-configuration>")

    title = f"hotplex {opencode_payload.id}"
    session = opencode_server.request("POST", "/session", {"title": title})
    path = f"/session/{session['id']}/message"
    posted = opencode_server.request("POST", path, message_body(payload))
    messages = opencode_server.request("GET", path)

    # noReply: the user message is stored and no assistant turn is started.
    assert [m["info"]["role"] for m in messages] == ["user"]
    stored = messages[0]
    assert stored["info"]["id"] == posted["info"]["id"]
    assert [p["text"] for p in stored["parts"] if p["type"] == "text"] == [PROBE_TEXT]
    assert stored["info"]["system"].encode("utf-8") == payload["system"].encode("utf-8")
