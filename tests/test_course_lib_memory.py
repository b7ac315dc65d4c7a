"""course_lib.memory: the tracker counts live tensor bytes honestly."""

import torch

from course_lib import MemoryTracker


def test_tracker_counts_a_new_tensor_and_its_release():
    with MemoryTracker() as tracker:
        x = torch.empty(1000, dtype=torch.float32)
        assert tracker.live_bytes == 4000
        del x
        assert tracker.live_bytes == 0
    assert tracker.peak_bytes == 4000


def test_tracker_peak_is_the_maximum_of_live_bytes_over_time():
    with MemoryTracker() as tracker:
        for _ in range(3):
            x = torch.zeros(250, dtype=torch.float64)  # 2000 bytes, freed next iteration
        y = torch.zeros(100, dtype=torch.float64)  # 800 bytes
    del x, y
    # at most two of them are alive at once (the old x dies only once the new one is assigned)
    assert tracker.peak_bytes == 4000
    assert tracker.live_bytes == 0


def test_tracker_does_not_count_views_or_tensors_created_before_it():
    a = torch.zeros(1000)
    with MemoryTracker() as tracker:
        view = a[:10].unsqueeze(0)  # a view of existing storage: no new memory
        b = torch.ones(10, 10)
        b_view = b.view(100)  # shares b's storage: counted once
    assert tracker.peak_bytes == 400
    assert view.numel() == 10 and b_view.numel() == 100


def test_tracker_records_the_largest_shape():
    with MemoryTracker() as tracker:
        torch.zeros(30, 2) @ torch.zeros(2, 40)
    assert tracker.largest_shape == (30, 40)
    assert tracker.largest_numel == 1200
