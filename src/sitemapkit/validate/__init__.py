"""The validate layer: sitemaps checked against the protocol, the bundled official XSDs and Google's rules, file by
file or a whole set (index, children, hreflang reciprocity), with text, JSON and JUnit reports.
"""

from __future__ import annotations

from sitemapkit.core._callable import make_package_callable
from sitemapkit.validate._driver import (
    FileReport,
    Profile,
    ValidateProgress,
    ValidationReport,
    validate,
    validate_bytes,
)

__all__ = ["FileReport", "Profile", "ValidateProgress", "ValidationReport", "validate", "validate_bytes"]

# ``sitemapkit.validate`` is both this package and the everyday function: calling the package calls the function.
make_package_callable(__name__, validate)
