#!/usr/bin/env python3
"""The cluster trainer's cost model, fitted to measured runs and checked
against others before it projects anything (see ../cluster-model.md).

Every input is a run directory's `cluster-epochs.csv` (rank 0 writes one
row per rank per sync, and rows for the settles and the start's
replication) or a figure measured with a command named in the record.

  model.py fit RUN_DIR                  unit costs from one run
  model.py check --fit RUN_DIR --single IT_PER_S --cores C [--whole] RUN_DIR...
                                        predicted against measured, per run
                                        (--whole: the training predicted too)
  model.py project --fit RUN_DIR ...    machines x cores at a link's rate
                                        (--overlap: epochs train beside the syncs)

One epoch, as the trainer runs it (crates/trainer/src/training/cluster/):
  rank r trains its share:            train_r   (from its measured rate)
  then drains its delta buffer:       drain_r = c_drain * sent_r       (serial)
  the exchange waits for the last:    arrive  = max_r (train_r + drain_r)
  then moves every rank's bytes:      transfer = latency + moved / bandwidth
  every rank sorts and applies:       apply = c_apply * gathered / share_of_cpu
  rank 0's bookkeeping:               c_epoch (orders, counters, telemetry)
  epoch wall = arrive + transfer + apply + c_epoch
where sent_r is what rank r sends, gathered = sum_r sent_r (the apply sorts
every gathered entry, not only the distinct ones), and share_of_cpu is the
CPU a rank gets while every rank applies at once: min(1, cores / (ranks x
threads)). A settle costs c_settle per record it applies on rank 0 (the
union of the ranks' held strategy sums); the start's replication is
reported apart (a one-off per session).

Rank 0's sync share = 1 - train_0 / wall over the epochs; efficiency =
the session's iterations per second of epochs and settles, over one
process's rate with every core of the machine(s).
"""
import argparse
import csv
import math
import sys
from collections import defaultdict


def read_events(run_dir):
    """Rows of cluster-epochs.csv, grouped: [(event, through, [rows])]."""
    path = f"{run_dir}/cluster-epochs.csv"
    groups = defaultdict(list)
    order = []
    with open(path) as f:
        for row in csv.DictReader(f):
            for key in row:
                if key != "event":
                    row[key] = float(row[key])
            key = (row["event"], row["through_iteration"], len(order))
            if row["rank"] == 0:
                order.append(key)
            groups[order[-1]].append(row)
    return [(event, through, groups[(event, through, i)]) for event, through, i in order]


def syncs(events):
    return [rows for event, _, rows in events if event == "sync"]


class Costs:
    """Unit costs fitted to one run."""

    def __init__(self, drain, apply, bandwidth, latency, epoch, settle, rates, spread=0.0):
        self.drain = drain          # s per record a rank sends
        self.apply = apply          # s per gathered entry, a whole core
        self.bandwidth = bandwidth  # bytes/s a rank receives
        self.latency = latency      # s per exchange
        self.epoch = epoch          # s of rank 0's bookkeeping per epoch
        self.settle = settle        # s per record a settle applies
        self.rates = rates          # it/s per rank, as measured
        self.spread = spread        # a rank's epoch time around the epoch's mean (std. dev., relative)

    def show(self):
        return (
            f"drain {self.drain * 1e9:.0f} ns a sent record, apply {self.apply * 1e9:.0f} ns a gathered entry "
            f"(a whole core), transfer {self.latency * 1e3:.1f} ms + {self.bandwidth / 1e6:.0f} MB/s received, "
            f"bookkeeping {self.epoch * 1e3:.0f} ms an epoch, settle {self.settle * 1e9:.0f} ns an applied record, "
            f"a rank's epoch within {self.spread:.1%} of the mean (one std. dev.)"
        )


def expected_max_normal(n):
    """E[max of n independent standard normals]: how far past the mean
    the slowest of n ranks arrives, in standard deviations."""
    if n <= 1:
        return 0.0
    steps = 4000
    lo, hi = -8.0, 8.0
    width = (hi - lo) / steps
    total = 0.0
    for i in range(steps):
        x = lo + (i + 0.5) * width
        pdf = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        cdf = 0.5 * (1 + math.erf(x / math.sqrt(2)))
        total += x * n * pdf * cdf ** (n - 1) * width
    return total


def epoch_spread(epochs):
    """The standard deviation of a rank's training time around its
    epoch's mean, relative to that mean, over every rank and epoch, each
    epoch weighted by its length (the first, short epochs of a session,
    which size the rest, would otherwise count as much as the long ones)."""
    squares = weights = 0.0
    for rows in epochs:
        times = [r["train_seconds"] for r in rows]
        n = len(times)
        mean = sum(times) / n
        if mean > 0 and n > 1:
            squares += mean * sum((t / mean - 1) ** 2 for t in times) / (n - 1)
            weights += mean
    return math.sqrt(squares / weights) if weights else 0.0


def cpu_share(ranks, threads, cores):
    return min(1.0, cores / (ranks * threads))


def slowest_arrival(rows, drain=None):
    arrivals = [
        r["train_seconds"] + (r["drain_seconds"] if drain is None else drain * r["records_sent"])
        for r in rows
    ]
    last = max(range(len(rows)), key=lambda i: arrivals[i])
    return last, arrivals[last]


def fit(run_dir, threads, cores, bandwidth=None, latency=0.0):
    events = read_events(run_dir)
    epochs = syncs(events)[1:]  # the first epoch is a probe of ranks' sizes
    ranks = len(epochs[0])
    share = cpu_share(ranks, threads, cores)
    sent = sum(r["records_sent"] for rows in epochs for r in rows)
    drain = sum(r["drain_seconds"] for rows in epochs for r in rows) / sent
    # The apply of every rank, per gathered entry, scaled to a whole core.
    gathered = sum(sum(r["records_sent"] for r in rows) for rows in epochs) * ranks
    apply = sum(r["apply_seconds"] for rows in epochs for r in rows) / gathered * share
    # The last rank to arrive waits for no one: its exchange is the
    # transfer alone.
    moved = transfer = 0.0
    for rows in epochs:
        last, _ = slowest_arrival(rows)
        transfer += rows[last]["exchange_seconds"] - latency
        moved += sum(r["bytes_sent"] for r in rows) * (ranks - 1) / ranks
    if bandwidth is None:
        bandwidth = moved / max(transfer, 1e-9)
    epoch = sum(
        rows[0]["wall_seconds"] - rows[0]["train_seconds"] - rows[0]["sync_seconds"]
        for rows in epochs
    ) / len(epochs)
    settles = [rows for event, _, rows in events if event == "settle"]
    settle_applied = sum(rows[0]["records_applied"] for rows in settles)
    settle = (
        sum(rows[0]["wall_seconds"] for rows in settles) / settle_applied
        if settle_applied
        else 0.0
    )
    rates = [
        sum(rows[i]["iterations"] for rows in epochs) / sum(rows[i]["train_seconds"] for rows in epochs)
        for i in range(ranks)
    ]
    return Costs(drain, apply, bandwidth, latency, epoch, settle, rates, epoch_spread(epochs))


def predict_epoch(costs, rows, threads, cores):
    """Rank 0's wall for one measured epoch: its sizes and every rank's
    measured training time are inputs; every other second is predicted."""
    ranks = len(rows)
    _, arrive = slowest_arrival(rows, costs.drain)
    gathered = sum(r["records_sent"] for r in rows)
    moved = sum(r["bytes_sent"] for r in rows) * (ranks - 1) / ranks
    transfer = costs.latency + moved / costs.bandwidth if ranks > 1 else 0.0
    apply = costs.apply * gathered / cpu_share(ranks, threads, cores)
    return arrive + transfer + apply + costs.epoch


def predict_epoch_overlap(costs, rows, threads, cores, fit_share):
    """Rank 0's wall for one measured epoch of a run whose epochs train
    beside the last one's sync (the rows' sync figures are that sync's).
    Nothing measured of the epoch's time is an input: each rank trains at
    the fitted runs' rate, scaled to its share of the cores, and its sync's
    work (its drain and its apply of every gathered entry, single-core
    seconds) takes time from the same share; the epoch ends when the
    slowest rank's training and the sync are both done."""
    ranks = len(rows)
    share = cpu_share(ranks, threads, cores)
    rate = sum(costs.rates) / len(costs.rates) / fit_share
    gathered = sum(r["records_sent"] for r in rows)
    moved = sum(r["bytes_sent"] for r in rows) * (ranks - 1) / ranks
    transfer = costs.latency + moved / costs.bandwidth if ranks > 1 else 0.0
    trained = max(
        (r["iterations"] / rate + costs.drain * r["records_sent"] + costs.apply * gathered) / share
        for r in rows
    )
    synced = (max(costs.drain * r["records_sent"] for r in rows) + transfer
              + costs.apply * gathered / share)
    return max(trained, synced) + costs.epoch


def predict_epoch_whole(costs, rows, threads, cores, fit_share):
    """Rank 0's wall for one measured epoch with nothing of its time an
    input: each rank trains its iterations at the fitted run's rate, scaled
    to its share of the cores, the slowest arriving as far past the mean
    as the fitted run's spread makes the slowest of that many ranks; the
    sync as in `predict_epoch`."""
    ranks = len(rows)
    rate = sum(costs.rates) / len(costs.rates) / fit_share * cpu_share(ranks, threads, cores)
    # The slowest of the ranks arrives past the mean by the fitted spread.
    straggle = 1 + costs.spread * expected_max_normal(ranks)
    arrive = max(r["iterations"] / rate * straggle + costs.drain * r["records_sent"] for r in rows)
    gathered = sum(r["records_sent"] for r in rows)
    moved = sum(r["bytes_sent"] for r in rows) * (ranks - 1) / ranks
    transfer = costs.latency + moved / costs.bandwidth if ranks > 1 else 0.0
    apply = costs.apply * gathered / cpu_share(ranks, threads, cores)
    return arrive + transfer + apply + costs.epoch


def check(costs, run_dir, threads, cores, single_rate, overlap=None, whole=None):
    """Predicted against measured for one run; `overlap`: the fitted run's
    share of a core, when the run's epochs trained beside its syncs;
    `whole`: the same share, to predict the training too (the whole wall
    time, not only the syncs')."""
    events = read_events(run_dir)
    epochs = syncs(events)[1:]
    ranks = len(epochs[0])
    iterations = sum(r["iterations"] for rows in epochs for r in rows)
    measured_wall = sum(rows[0]["wall_seconds"] for rows in epochs)
    predicted_train0 = None
    if whole is not None:
        train0 = sum(rows[0]["train_seconds"] for rows in epochs)
        rate = sum(costs.rates) / len(costs.rates) / whole * cpu_share(ranks, threads, cores)
        predicted_train0 = sum(rows[0]["iterations"] for rows in epochs) / rate
        predicted_wall = sum(
            predict_epoch_whole(costs, rows, threads, cores, whole) for rows in epochs
        )
    elif overlap is None:
        train0 = sum(rows[0]["train_seconds"] for rows in epochs)
        predicted_wall = sum(predict_epoch(costs, rows, threads, cores) for rows in epochs)
    else:
        # Beside the syncs the measured training time includes what the
        # syncs took from it: the share lost is against training alone.
        rate = sum(costs.rates) / len(costs.rates) / overlap * cpu_share(ranks, threads, cores)
        train0 = sum(rows[0]["iterations"] for rows in epochs) / rate
        predicted_wall = sum(
            predict_epoch_overlap(costs, rows, threads, cores, overlap) for rows in epochs
        )
    settles = [rows for event, _, rows in events if event == "settle"]
    measured_settle = sum(rows[0]["wall_seconds"] for rows in settles)
    predicted_settle = sum(costs.settle * rows[0]["records_applied"] for rows in settles)
    def efficiency(wall, settle_seconds):
        return iterations / (wall + settle_seconds) / single_rate
    result = {
        "run": run_dir,
        "ranks": ranks,
        "epochs": len(epochs),
        "share_measured": 1 - train0 / measured_wall,
        "share_predicted": 1 - (predicted_train0 or train0) / predicted_wall,
        "eff_measured": efficiency(measured_wall, measured_settle),
        "eff_predicted": efficiency(predicted_wall, predicted_settle),
        "epochs_eff_measured": efficiency(measured_wall, 0.0),
        "epochs_eff_predicted": efficiency(predicted_wall, 0.0),
        "settle_measured": measured_settle,
        "settle_predicted": predicted_settle,
    }
    return result


def distinct_curve(points):
    points = sorted(points)

    def d(n, slope_beyond=None):
        if n <= points[0][0]:
            return points[0][1] * n / points[0][0]
        segments = list(zip(points, points[1:]))
        (n0, d0), (n1, d1) = next(((a, b) for a, b in segments if n <= b[0]), segments[-1])
        slope = math.log(d1 / d0) / math.log(n1 / n0)
        if n > points[-1][0] and slope_beyond is not None:
            (n0, d0), slope = points[-1], slope_beyond
        return d0 * (n / n0) ** slope

    return d


def project(costs, args):
    """M machines x C cores, one rank a machine, from the fitted unit costs
    (measured on one core) and the measured distinct-records curve D(n)."""
    d = distinct_curve([tuple(map(float, p.split(":"))) for p in args.distinct.split(",")])
    M, C = args.machines, args.cores_machine
    link = args.link_gbit * 1e9 / 8 * args.link_efficiency
    machine_rate = args.thread_rate * C * args.thread_scaling
    # A rank trains through its replica's bookkeeping, slower than one
    # process on the same cores; efficiency is against one process.
    rank_rate = machine_rate * args.rank_ratio
    follower_rate = rank_rate * args.follower_ratio
    print(
        f"{M} machines x {C} cores, {args.link_gbit:g} Gb/s at {args.link_efficiency:.0%}; one machine alone "
        f"{machine_rate:,.0f} it/s, as a rank {args.rank_ratio:.2f} of that; the slowest follower at "
        f"{args.follower_ratio:.2f} of rank 0; on a machine's "
        f"cores the drain runs {args.drain_speedup:g}x, the apply {args.apply_speedup:g}x (its one-core cost "
        f"{args.apply_scale:g} of the fitted) and the settle "
        f"{args.settle_speedup:g}x faster than on one{'; the slowest of the machines waited for' if args.straggle else ''}; a settle of {args.settle_records:,.0f} records and a "
        f"{args.checkpoint_seconds:g}-second checkpoint every {args.settle_every:g} s; D past the measured "
        f"points with slope {args.slope_beyond}"
    )
    print(f"{'sync every':>10} {'E/machine':>10} {'sent':>8} {'drain s':>8} {'wait s':>7} "
          f"{'transfer s':>10} {'apply s':>8} {'ckpt':>7} {'share':>6} {'efficiency':>10}")
    # At each checkpoint the ranks settle, then rank 0 writes its store
    # while every other rank waits for its next order: the whole cluster
    # idles for the write.
    settle = (args.settle_records * costs.settle / args.settle_speedup
              + (M - 1) / M * args.settle_records * args.record_bytes / link
              + args.checkpoint_seconds)
    for period in args.periods:
        # The epoch's iterations adapt so that rank 0's wall is the period.
        lo, hi = 1.0, machine_rate * period
        for _ in range(60):
            E = (lo + hi) / 2
            sent = d(E, args.slope_beyond)
            drain = costs.drain * sent / args.drain_speedup
            train0, train_slow = E / rank_rate, E / follower_rate
            if args.straggle:
                # The slowest of M ranks, each epoch's times spread as the
                # fitted run's were.
                train_slow *= 1 + costs.spread * expected_max_normal(M)
            arrive = max(train0, train_slow) + drain
            transfer = args.latency + (M - 1) * sent * args.record_bytes / link
            apply = costs.apply * args.apply_scale * M * sent / args.apply_speedup
            if args.overlap:
                # The sync runs beside the next epoch's training, whose
                # cores it takes: its single-core work, spread over the
                # machine's cores, lengthens the training; the epoch waits
                # for the sync only if the sync is the longer.
                stolen = (costs.drain + costs.apply * args.apply_scale * M) * sent / C
                sync_wall = drain + (max(train0, train_slow) - train0) + transfer + apply
                wall = max(max(train0, train_slow) + stolen, sync_wall) + costs.epoch
            else:
                wall = arrive + transfer + apply + costs.epoch
            lo, hi = (E, hi) if wall < period else (lo, E)
        wait = max(train0, train_slow) - train0
        share = 1 - train0 / wall
        eff = E / machine_rate / wall * args.settle_every / (args.settle_every + settle)
        print(f"{period:>9g}s {E:>10,.0f} {sent * args.record_bytes / 1e6:>6,.0f}MB {drain:>8.2f} {wait:>7.2f} "
              f"{transfer:>10.2f} {apply:>8.2f} {settle / (args.settle_every + settle):>6.1%} {share:>6.1%} {eff:>9.2f}N")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    def common(q):
        q.add_argument("--threads", type=int, default=1, help="threads per rank in the runs")
        q.add_argument("--cores", type=float, default=2, help="cores of the machine the runs shared")
        q.add_argument("--bandwidth", type=float, help="bytes/s a rank receives, measured apart (default: fitted)")
        q.add_argument("--latency", type=float, default=0.0, help="seconds per exchange, measured apart")

    f = sub.add_parser("fit")
    f.add_argument("run_dir")
    common(f)
    c = sub.add_parser("check")
    c.add_argument("--fit", required=True)
    c.add_argument("--single", type=float, required=True, help="one process's it/s with every core, measured")
    c.add_argument("runs", nargs="+", help="RUN_DIR, or RUN_DIR@BANDWIDTH[:LATENCY] (bytes/s a rank receives and seconds per exchange, measured on that network)")
    c.add_argument("--overlap", action="store_true",
                   help="the runs' epochs trained beside their syncs (--sync-overlap on)")
    c.add_argument("--whole", action="store_true",
                   help="predict the training too, at the fitted run's rate: the whole wall time, not only the syncs'")
    common(c)
    j = sub.add_parser("project")
    j.add_argument("--fit", required=True)
    common(j)
    j.add_argument("--machines", type=int, default=8)
    j.add_argument("--cores-of-machine", dest="cores_machine", type=int, default=16)
    j.add_argument("--thread-rate", type=float, required=True, help="it/s of one thread alone, measured")
    j.add_argument("--thread-scaling", type=float, default=1.0, help="a machine's rate over cores x one thread's")
    j.add_argument("--rank-ratio", type=float, default=1.0,
                   help="a rank's training rate over one process's on the same cores, measured")
    j.add_argument("--follower-ratio", type=float, default=1.0, help="the slowest follower's rate over rank 0's, measured")
    j.add_argument("--drain-speedup", type=float, default=1.0, help="the drain on a machine's cores against one, measured or assumed")
    j.add_argument("--apply-speedup", type=float, default=1.0, help="the apply on a machine's cores against one")
    j.add_argument("--apply-scale", type=float, default=1.0,
                   help="today's one-core apply over the fitted run's code's, both timed by `bench replica` in one sitting")
    j.add_argument("--settle-speedup", type=float, default=1.0, help="the settle on a machine's cores against one")
    j.add_argument("--settle-records", type=float, default=45_956_585, help="records a settle applies (default: the whole table, a bound)")
    j.add_argument("--settle-every", type=float, default=600.0, help="seconds between settles (the checkpoint period)")
    j.add_argument("--checkpoint-seconds", type=float, default=0.0,
                   help="rank 0's checkpoint write after each settle, every rank idle meanwhile, measured")
    j.add_argument("--record-bytes", type=float, default=44)
    j.add_argument("--distinct", required=True, help="n:D(n),... measured: distinct regret records n iterations of one rank send")
    j.add_argument("--slope-beyond", type=float, default=None)
    j.add_argument("--link-gbit", type=float, default=10.0)
    j.add_argument("--link-efficiency", type=float, default=0.8)
    j.add_argument("--periods", type=float, nargs="+", default=[10, 30, 60])
    j.add_argument("--overlap", action="store_true",
                   help="epochs train beside the last epoch's sync (--sync-overlap on)")
    j.add_argument("--straggle", action="store_true",
                   help="each epoch waits for the slowest of the machines, their times spread as the fitted run's ranks' were")
    args = p.parse_args()

    costs = fit(args.fit if args.command != "fit" else args.run_dir, args.threads, args.cores,
                args.bandwidth, args.latency)
    print("fitted:", costs.show())
    print("fitted run's rates:", ", ".join(f"rank {i} {r:,.0f} it/s" for i, r in enumerate(costs.rates)))
    if args.command == "check":
        print(f"{'run':<24} {'ranks':>5} {'epochs':>6} | {'sync share':^22} | {'efficiency, epochs':^22} | "
              f"{'efficiency, settle too':^22} | {'settle s':^14}")
        print(f"{'':<24} {'':>5} {'':>6} | {'meas.':>6} {'pred.':>6} {'error':>7} | {'meas.':>6} {'pred.':>6} {'error':>7} | "
              f"{'meas.':>6} {'pred.':>6} {'error':>7} | {'meas.':>6} {'pred.':>6}")
        worst = 0.0
        for spec in args.runs:
            run_dir, _, network = spec.partition("@")
            run_costs = costs
            if network:
                bandwidth, _, latency = network.partition(":")
                run_costs = Costs(costs.drain, costs.apply, float(bandwidth), float(latency or 0.0),
                                  costs.epoch, costs.settle, costs.rates)
            fit_share = cpu_share(len(costs.rates), args.threads, args.cores)
            r = check(run_costs, run_dir, args.threads, args.cores, args.single,
                      fit_share if args.overlap else None,
                      fit_share if args.whole else None)
            errors = [
                r["share_predicted"] / r["share_measured"] - 1,
                r["epochs_eff_predicted"] / r["epochs_eff_measured"] - 1,
                r["eff_predicted"] / r["eff_measured"] - 1,
            ]
            worst = max([worst] + [abs(e) for e in errors])
            print(f"{run_dir:<24} {r['ranks']:>5} {r['epochs']:>6} | {r['share_measured']:>6.1%} {r['share_predicted']:>6.1%} "
                  f"{errors[0]:>+7.1%} | {r['epochs_eff_measured']:>6.2f} {r['epochs_eff_predicted']:>6.2f} {errors[1]:>+7.1%} | "
                  f"{r['eff_measured']:>6.2f} {r['eff_predicted']:>6.2f} {errors[2]:>+7.1%} | "
                  f"{r['settle_measured']:>6.1f} {r['settle_predicted']:>6.1f}")
        print(f"largest error {worst:.0%}")
        sys.exit(0 if worst <= 0.25 else 1)
    if args.command == "project":
        project(costs, args)


if __name__ == "__main__":
    main()
