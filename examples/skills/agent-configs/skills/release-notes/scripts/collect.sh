#!/bin/sh
# Lists the merge commits since the previous tag.
git log --merges --oneline "$(git describe --tags --abbrev=0 "$1^")..$1"
