"""Labels spent by the until-confident queue against fixed overlap, at the same accuracy, on a
simulated crowd (annotation/crowd/simulation.py; no database).

    .venv/bin/python -m bench.until_confident [--items 1000] [--seed 0]

Workers: 3 careful (92 %), 4 noisy (70 %), 1 spammer; yes/no items (30 % yes). Accuracy is
majority vote's (ties: the smaller label) against the truth. Until confident: 2 labels, then
one more while the majority label's share is under the target, up to the cap.
"""

from __future__ import annotations

import argparse

from annotation.crowd.aggregation import aggregate
from annotation.crowd.simulation import (
    CAREFUL,
    NOISY,
    SPAMMER,
    accuracy,
    fixed_overlap_labels,
    make_crowd,
    n_labels,
    until_confident_labels,
)

MIX = ((CAREFUL, 3), (NOISY, 4), (SPAMMER, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    crowd = make_crowd(n_items=args.items, mix=MIX, seed=args.seed)
    rows = []
    for overlap in (1, 2, 3, 4, 5, 6, 7):
        labels = fixed_overlap_labels(crowd, overlap)
        rows.append((f"fixed overlap {overlap}", labels))
    for target, cap in ((0.75, 5), (0.8, 7)):
        labels = until_confident_labels(crowd, overlap=2, target=target, cap=cap)
        rows.append((f"until confident {target:.2f}, cap {cap}", labels))
    print(f"{args.items} items, seed {args.seed}")
    print(f"{'policy':<32} {'labels':>7} {'per item':>8} {'accuracy':>8}")
    for name, labels in rows:
        hit = accuracy(aggregate(labels, "majority").labels, crowd.truth)
        spent = n_labels(labels)
        print(f"{name:<32} {spent:>7} {spent / args.items:>8.2f} {hit:>8.3f}")


if __name__ == "__main__":
    main()
