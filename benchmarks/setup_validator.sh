#!/usr/bin/env bash
# Comparison tool for benchmarks/bench_validator.py: xmllint (libxml2-utils). Not a project dependency.
set -euo pipefail
if command -v xmllint >/dev/null 2>&1; then
  echo "xmllint already installed: $(xmllint --version 2>&1 | head -1)"
  exit 0
fi
if [ "$(id -u)" = "0" ]; then
  apt-get update -qq && apt-get install -y -qq libxml2-utils
else
  sudo apt-get update -qq && sudo apt-get install -y -qq libxml2-utils
fi
