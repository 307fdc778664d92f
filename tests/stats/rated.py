"""Simulated ratings for the statistics' tests."""

import numpy as np


def rated_units(rng: np.random.Generator, n: int, agree: float, m: int = 4, k: int = 5) -> np.ndarray:
    """Value counts of ``n`` units rated by ``m`` annotators each on ``k`` values: each annotator
    gives the unit's true value with chance ``agree``, else a value at random."""
    rows = np.zeros((n, k), dtype=int)
    for row in rows:
        truth = rng.integers(k)
        for _ in range(m):
            row[truth if rng.random() < agree else rng.integers(k)] += 1
    return rows
