#!/usr/bin/env sh
# The figures in the README, drawn by the toolbox's own commands (needs the plot extra:
# pip install -e '.[plot]'). Run from the repository's top folder: sh docs/make_images.sh
set -eu
out=docs/images
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# three strategies side by side: optimal play, the greedy heuristic, random play
yahtzee simulate --players optimal,greedy,random -n 20000 --seed 1 --quiet --plot "$out/simulate.png"

# the exact distribution of optimal play's final score, and the chance of reaching 300
yahtzee solve --distribution --target 300 --quiet --plot "$out/distribution.png"

# a season of 60 evenings: two players, one playing optimally, one greedily (logs from simulate,
# the seats named as people would be), then stats over them
yahtzee simulate --players optimal,greedy -n 60 --seed 5 --quiet --log-out "$tmp/season.ndjson"
sed -e 's/"optimal 1"/"Anna"/g; s/"greedy 2"/"Ben"/g; s/"optimal"/"Anna"/g; s/"greedy"/"Ben"/g' \
    "$tmp/season.ndjson" > "$tmp/family.ndjson"
yahtzee stats "$tmp/family.ndjson" --plot "$out/stats.png" > /dev/null
