# Sourced by the experiment scripts that resume copies of one run: a fresh
# copy of a run directory's store, bids and settings, then the page cache
# dropped, so that each arm starts from the same checkpoint with a cold
# cache (pages the copy left cached would be charged to no rank's memcap,
# and would warm the next arm).
# Usage: fresh_copy BASE_RUN_DIR COPY_DIR
fresh_copy() {
  rm -rf "$2"
  mkdir -p "$2"
  cp -a "$1"/store "$1"/bidding "$1"/settings.toml "$1"/curve.csv "$2"/
  sync
  echo 1 > /proc/sys/vm/drop_caches
}
