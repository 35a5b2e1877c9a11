# Sourced by the experiment scripts that resume copies of one run: a fresh
# copy of a run directory's store, bids and settings, with the page cache
# dropped after it, so that each arm starts from the same checkpoint and a
# cold cache. (Older scripts carry their own copy of this, as they ran.)
# Usage: fresh_copy BASE_RUN_DIR COPY_DIR
fresh_copy() {
  rm -rf "$2"
  mkdir -p "$2"
  cp -a "$1"/store "$1"/bidding "$1"/settings.toml "$1"/curve.csv "$2"/
  sync
  echo 1 > /proc/sys/vm/drop_caches
}
