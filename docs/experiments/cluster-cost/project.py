#!/usr/bin/env python3
"""Projects the cluster trainer's speed on M machines x C cores from the
per-sync costs measured on this 2-core machine (see ../cluster-cost.md).

Every input is a measured figure passed on the command line, so the
projection can be redone from new measurements:

  project.py --phase full-play --thread-rate 410 --records-per-iteration 52 \
             --apply-ns 310 --table 46000000

Model (one epoch of P seconds of training on every machine):
  R     = C * thread_rate                    iterations/s of one machine alone
  E     = R * P                              iterations per machine per epoch
  sent  = min(E * records_per_iteration, table) records each machine sends
  union = min(M * sent, table)               records every machine applies
  exchange = (M - 1) * sent * bytes / link   an all-gather: each machine
                                             receives every other's records
  apply = union * apply_ns / (C / cores_measured)   summing and applying,
                                             parallel over the machine's cores
  share = (exchange + apply) / (P + exchange + apply)
  cluster it/s = M * R * (1 - share); efficiency = (1 - share), against M
  machines' worth of one machine's rate.
Records per iteration are the distinct records a rank sent per iteration
of its epochs here; larger epochs revisit more records, so this
overestimates bytes (conservative). Thread scaling is taken as linear in
cores (the measured 1- against 2-thread ratio is in the record).
With the strategy sums held back until checkpoints (the default since
this record's addendum), a sync sends regrets only (--delta-bytes
16 + 4 * width) for fewer records, and every --settle-every seconds a
settle exchanges and applies the held sums:
  settle sent  = min(R * K * settle_records_per_iteration, table)
  settle union = min(M * settle sent, table)
  settle = (M - 1) * settle sent * delta_bytes / link
           + settle union * settle_ns / (C / cores_measured)
amortised over the K seconds between settles.
With --distinct, `sent` and `union` are no longer records per iteration
times iterations: they are D(E) and D(M * E), where D(n) is the number
of distinct regret records n iterations touch, measured on this machine
(one epoch of n iterations on 2 ranks: a rank sends D(n / 2) records and
every rank applies D(n)). D is interpolated log-log between the measured
points; past the largest, the last segment's slope goes on (or
--slope-beyond), which overestimates D as long as its log-log slope keeps
falling as n grows, as it does over the measured points; a slope of 1
(every further iteration's records new) is the worst case.
A dense all-reduce instead moves 2 (M-1)/M * table * 8 * width bytes per
machine per sync whatever the epoch touched (printed for comparison; not
wired into training).
"""
import argparse

p = argparse.ArgumentParser()
p.add_argument("--phase", required=True)
p.add_argument("--thread-rate", type=float, required=True, help="iterations/s per thread, measured")
p.add_argument("--records-per-iteration", type=float, default=0.0, help="distinct records sent per iteration per rank, measured")
p.add_argument("--apply-ns", type=float, required=True, help="apply seconds per applied record x 1e9, measured")
p.add_argument("--cores-measured", type=float, default=2.0, help="cores the apply ran on when measured")
p.add_argument("--table", type=float, required=True, help="records in the phase's table")
p.add_argument("--width", type=int, default=7)
p.add_argument("--delta-bytes", type=float, help="bytes per record sent (default 16 + 8 * width: regrets and sums)")
p.add_argument("--settle-every", type=float, default=0.0, help="seconds between settles of held-back strategy sums (0: sums travel every sync)")
p.add_argument("--settle-records-per-iteration", type=float, default=0.0, help="distinct records with held sums per iteration of one machine, measured")
p.add_argument("--settle-ns", type=float, default=0.0, help="settle seconds per applied record x 1e9, measured")
p.add_argument("--distinct", help="measured distinct records touched: n:D(n),n:D(n),... (replaces --records-per-iteration for sent and union)")
p.add_argument("--slope-beyond", type=float, help="log-log slope of D past the largest measured point (default: the last segment's); 1 is linear growth, the worst case")
p.add_argument("--machines", type=int, default=8)
p.add_argument("--cores", type=int, default=16)
p.add_argument("--link-gbit", type=float, default=10.0)
p.add_argument("--link-efficiency", type=float, default=0.8, help="share of the line rate MPI achieves")
args = p.parse_args()

record_bytes = args.delta_bytes or 16 + 8 * args.width
import math

points = sorted(
    (float(n), float(d)) for n, d in (pair.split(":") for pair in args.distinct.split(","))
) if args.distinct else []


def distinct(n):
    """D(n), log-log between measured points, the last slope beyond them."""
    if n <= points[0][0]:
        return points[0][1] * n / points[0][0]
    segments = list(zip(points, points[1:]))
    (n0, d0), (n1, d1) = next(
        ((a, b) for a, b in segments if n <= b[0]), segments[-1]
    )
    slope = math.log(d1 / d0) / math.log(n1 / n0)
    if n > points[-1][0] and args.slope_beyond is not None:
        (n0, d0), slope = points[-1], args.slope_beyond
    return d0 * (n / n0) ** slope


def measured(n):
    return "measured" if any(abs(n - m) / m < 0.01 for m, _ in points) else (
        "interpolated" if n < points[-1][0] else "extrapolated")


link = args.link_gbit * 1e9 / 8 * args.link_efficiency
M, C = args.machines, args.cores
R = C * args.thread_rate
print(f"{args.phase}: {M} machines x {C} cores, {args.link_gbit:g} Gb/s at {args.link_efficiency:.0%}")
print(f"one machine alone: {R:,.0f} it/s")
print(f"{'sync every':>10} {'sent/machine':>13} {'exchange s':>10} {'apply s':>8} {'share':>6} {'cluster it/s':>13} {'efficiency':>10}")
for period in (10, 30, 60, 120):
    E = R * period
    if points:
        sent = min(distinct(E), args.table)
        union = min(distinct(M * E), args.table)
    else:
        sent = min(E * args.records_per_iteration, args.table)
        union = min(M * sent, args.table)
    exchange = (M - 1) * sent * record_bytes / link
    apply = union * args.apply_ns * 1e-9 / (C / args.cores_measured)
    share = (exchange + apply) / (period + exchange + apply)
    if args.settle_every > 0:
        K = args.settle_every
        settle_sent = min(R * K * args.settle_records_per_iteration, args.table)
        settle_union = min(M * settle_sent, args.table)
        settle = (M - 1) * settle_sent * (16 + 4 * args.width) / link \
            + settle_union * args.settle_ns * 1e-9 / (C / args.cores_measured)
        share = 1 - (1 - share) * K / (K + settle)
    how = f"  D({E:,.0f}) {measured(E)}, D({M * E:,.0f}) {measured(M * E)}" if points else ""
    print(f"{period:>9}s {sent * record_bytes / 1e6:>10,.0f} MB {exchange:>10.2f} {apply:>8.2f} {share:>6.1%} {M * R * (1 - share):>13,.0f} {1 - share:>9.2f}N{how}")
if args.settle_every > 0:
    print(f"(shares include a settle every {args.settle_every:g} s)")
dense = 2 * (M - 1) / M * args.table * 8 * args.width
print(f"dense all-reduce instead: {dense / 1e9:.2f} GB per machine per sync, {dense / link:.2f} s on the link")
