"""The bundled official XSDs, compiled once per process and used offline (no network, ever)."""

from __future__ import annotations

import enum
import os
from functools import cache

from lxml import etree

__all__ = ["SchemaKind", "load_schema", "schema_path"]


class SchemaKind(enum.Enum):
    """Which schema: a urlset (with every extension imported) or a sitemap index."""

    URLSET = "urlset-with-extensions.xsd"
    INDEX = "siteindex.xsd"


_HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")


def schema_path(name: str) -> str:
    """Filesystem path of a bundled schema file: next to this module, where every install puts it (without
    importing importlib.resources and zipfile at start-up); importlib.resources where it is not (a zip import)."""
    path = os.path.join(_HERE, name)
    if os.path.isfile(path):
        return path
    from importlib import resources

    return str(resources.files("sitemapkit.validate").joinpath("schemas", name))


@cache
def load_schema(kind: SchemaKind) -> etree.XMLSchema:
    """Compile (once) and return the schema. Imports resolve to the bundled files; network access is off."""
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    doc = etree.parse(schema_path(kind.value), parser)
    return etree.XMLSchema(doc)
