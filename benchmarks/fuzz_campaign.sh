#!/bin/sh
# A random fuzz campaign over the CLI, target files, --arg values and output paths (tests/fuzz):
# rounds of TILESCHED_FUZZ_EXAMPLES random examples per test until MINUTES (default 30) are up.
# Prints the inputs tried and whether any round failed (a failure is an exit 3 or a traceback;
# its hypothesis report is in the log). Run it under nice: nice -n 10 benchmarks/fuzz_campaign.sh
minutes=${1:-30}
log=${FUZZ_LOG:-fuzz_campaign.log}
count=$(mktemp)
end=$(( $(date +%s) + minutes * 60 ))
rounds=0 failed=0
: > "$log"
while [ "$(date +%s)" -lt "$end" ]; do
    rounds=$((rounds + 1))
    if ! TILESCHED_FUZZ_RANDOM=1 TILESCHED_FUZZ_EXAMPLES=${TILESCHED_FUZZ_EXAMPLES:-40} \
            TILESCHED_FUZZ_COUNT="$count" python -m pytest -q -p no:cacheprovider tests/fuzz \
            >> "$log" 2>&1; then
        failed=$((failed + 1))
    fi
done
echo "fuzz campaign: $minutes min, $rounds rounds, $(wc -l < "$count") inputs, $failed failed round(s)"
rm -f "$count"
