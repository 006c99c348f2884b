"""The bundled official XSDs, compiled once per process and used offline (no network, ever)."""

from __future__ import annotations

import enum
from functools import cache
from importlib import resources

from lxml import etree

__all__ = ["SchemaKind", "load_schema", "schema_path"]


class SchemaKind(enum.Enum):
    """Which schema: a urlset (with every extension imported) or a sitemap index."""

    URLSET = "urlset-with-extensions.xsd"
    INDEX = "siteindex.xsd"


def schema_path(name: str) -> str:
    """Filesystem path of a bundled schema file."""
    return str(resources.files("sitemapkit.validate").joinpath("schemas", name))


@cache
def load_schema(kind: SchemaKind) -> etree.XMLSchema:
    """Compile (once) and return the schema. Imports resolve to the bundled files; network access is off."""
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    doc = etree.parse(schema_path(kind.value), parser)
    return etree.XMLSchema(doc)
