#!/usr/bin/env bash
# Comparison tools for benchmarks/bench_reader.py, installed into benchmarks/_work/venv-reader (gitignored),
# never into the project: ultimate-sitemap-parser and Scrapy (for scrapy.utils.sitemap.Sitemap).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/_work/venv-reader"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade ultimate-sitemap-parser scrapy
"$venv/bin/python" -c "import usp, scrapy; print('usp', usp.__version__ if hasattr(usp, '__version__') else '?', 'scrapy', scrapy.__version__)"
