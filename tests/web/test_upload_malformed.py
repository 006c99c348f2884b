"""Issue 22: an uploaded sitemap with malformed namespace declarations is answered with its problems (200), not
with a server error (the validator used to raise on them)."""

from __future__ import annotations

import json

from tests.web.conftest import WebServer

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
BOUNDARY = "b0undary"


def _form(data: bytes) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"sitemap.xml\"\r\n"
            "Content-Type: application/xml\r\n\r\n").encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()


def _doc(root_attrs: str) -> bytes:
    return (f'<?xml version="1.0"?>\n<urlset xmlns="{NS}"{root_attrs}>\n'
            "<url><loc>https://www.acme-widgets.com/a</loc></url>\n</urlset>\n").encode()


def test_uploads_with_malformed_namespaces_get_their_problems(web: WebServer) -> None:
    ctype = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    for attrs in (' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1\x7f"', ' xmlns:image="a>b"',
                  ' xmlns:xml="http://www.acme-widgets.com/x"', ' xmlns:xmlns="http://www.acme-widgets.com/x"',
                  ' foo:bar="1"'):
        status, _, body = web.request("POST", "/api/validate", raw=_form(_doc(attrs)), headers=ctype)
        assert status == 200, (attrs, body[:300])
        result = json.loads(body)
        assert result["valid"] is False
        group = next(g for g in result["groups"] if g["code"] == "SM201")
        assert group["problems"][0]["line"] == 2
        assert "namespaces" in group["problems"][0]["message"]
