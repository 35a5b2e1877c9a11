#!/bin/bash
# Continuous writeback against changes held until checkpoints, on copies of
# the 2-hour run's store, alternating, 2 threads, 10 minutes of training
# each plus the checkpoint at the end. Waits for the arms to finish first.
# (Run after the arms of maker had finished: it waited for their 'finished' file.)
WORK=${1:?usage: $0 WORK_DIR, the folder the runs of this record live in}
BIN_DIR=${BIN_DIR:?set BIN_DIR to the folder of the trainer binaries this record names, built at the commits it gives}
T=$BIN_DIR/trainer-writeback
cd $WORK/wb
sample() { # pid out: the process's io counters and CPU ticks, every 5 s
  while kill -0 $1 2>/dev/null; do
    { date +%s; cat /proc/$1/io; awk '{print "utime",$14,"stime",$15}' /proc/$1/stat; } > $2.tmp 2>/dev/null && mv $2.tmp $2
    sleep 5
  done
}
round=0
for mode in continuous at-checkpoint continuous at-checkpoint; do
  round=$((round+1))
  copy=$([ $mode = continuous ] && echo a || echo b)
  vmstat 10 > vmstat-$round-$mode.txt &
  V=$!
  /usr/bin/time -v $T resume --run-dir $WORK/wb/$copy --for 10m --threads 2 \
    --mmap-writeback $mode > resume-$round-$mode.log 2> resume-$round-$mode.err &
  TP=$!
  sleep 2
  P=$(pgrep -P $TP | head -1)
  sample $P io-$round-$mode.txt &
  wait $TP
  kill $V
done
echo done > finished
