"""``python -m sitemapkit``: the same as the ``sitemapkit`` command."""

from sitemapkit._cli import main

if __name__ == "__main__":
    main()
