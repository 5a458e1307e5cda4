#!/bin/sh
# Print the Unreleased section of CHANGELOG.md.
sed -n '/^## Unreleased/,/^## [0-9]/p' CHANGELOG.md
