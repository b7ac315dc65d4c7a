"""The Dask cluster the grading tests run ``grade --scheduler`` against."""

from __future__ import annotations

import logging


def local_cluster(n_workers: int = 1):
    """A LocalCluster of ``n_workers`` worker processes, one thread each, quiet, no dashboard."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=logging.CRITICAL,
    )
