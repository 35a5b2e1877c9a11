# Sourced by run.sh and panel.sh: the two bots (the strongest spec, and the
# same with ,continuations) on TABLE and BIDDING_BLUEPRINT, and a match that
# writes its output to OUT_DIR/NAME.txt. Expects tbl, bid and out set.
trainer=${TRAINER:-target/release/trainer}
base="bids:search-bids:200:$bid+search:400,blend,trust=50:$tbl"
cont="bids:search-bids:200,continuations:$bid+search:400,blend,trust=50:$tbl"
mkdir -p "$out"
match() {
  local name=$1; shift
  echo "== $name $(date -u +%FT%TZ)"
  "$trainer" eval "$@" --unseen uniform --threads 2 > "$out/$name.txt" 2>&1
  grep -E "A's points|A's point share" "$out/$name.txt"
}
