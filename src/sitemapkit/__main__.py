"""``python -m sitemapkit``: the same as the ``sitemapkit`` command."""

from sitemapkit.cli import main

if __name__ == "__main__":
    main()
