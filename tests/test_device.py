"""The device record cache of ``polycu device`` (the measurement itself is a GPU test)."""
from __future__ import annotations

import json

import pytest

from polycu.diagnostics import PolycuError
from polycu.runtime import device

H200 = device.DeviceInfo(name="NVIDIA H200", compute_capability="9.0", multiprocessors=132,
                         l2_bytes=62914560, memory_bytes=150_000_000_000,
                         copy_bandwidth=4.25e12, fp64_peak=33.0e12, fp32_peak=64.0e12,
                         measured="2026-11-22T10:00:00", pageable_h2d=9.8e9,
                         pageable_d2h=11.5e9, pinned_h2d=54.1e9, pinned_d2h=55.2e9)


def test_cache_round_trip_keeps_other_devices(tmp_path):
    path = tmp_path / "sub" / "devices.json"
    h100 = device.DeviceInfo(**{**H200.__dict__, "name": "NVIDIA H100 80GB HBM3",
                                "copy_bandwidth": 3.0e12})
    device.store(H200, path)
    device.store(h100, path)
    assert device.cached("NVIDIA H200", path) == H200
    assert device.cached("NVIDIA H100 80GB HBM3", path).copy_bandwidth == 3.0e12
    assert device.cached("Tesla K80", path) is None
    assert set(json.loads(path.read_text())) == {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}


def test_unreadable_or_foreign_records_are_ignored(tmp_path):
    path = tmp_path / "devices.json"
    path.write_text("{ not json")
    assert device.cached("NVIDIA H200", path) is None
    path.write_text(json.dumps({"NVIDIA H200": {"name": "NVIDIA H200", "bogus": 1}}))
    assert device.cached("NVIDIA H200", path) is None
    device.store(H200, path)  # replaces the broken record
    assert device.cached("NVIDIA H200", path) == H200


def test_cache_directory_follows_polycu_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYCU_CACHE_DIR", str(tmp_path))
    assert device.cache_path() == tmp_path / "devices.json"


def test_ceilings_and_format():
    ceilings = H200.ceilings
    assert (ceilings.copy_bandwidth, ceilings.peak("double"), ceilings.peak("float")) == \
        (4.25e12, 33.0e12, 64.0e12)
    text = device.format_info(H200)
    assert "NVIDIA H200 (compute capability 9.0)" in text
    assert "4.25 TB/s" in text and "33.0 TFLOP/s" in text and "60 MiB" in text
    assert "host to device:      9.8 GB/s pageable, 54.1 GB/s pinned" in text
    assert "device to host:      11.5 GB/s pageable, 55.2 GB/s pinned" in text


def test_a_record_without_transfer_rates_is_measured_again(tmp_path):
    """Records cached before the host transfers were measured lack them."""
    path = tmp_path / "devices.json"
    old = {k: v for k, v in H200.__dict__.items() if "_h2d" not in k and "_d2h" not in k}
    path.write_text(json.dumps({"NVIDIA H200": old}))
    assert device.cached("NVIDIA H200", path) is None


def test_without_pycuda_the_error_is_a_diagnostic(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_pycuda(name, *args, **kwargs):
        if name.startswith("pycuda"):
            raise ImportError("No module named 'pycuda'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pycuda)
    with pytest.raises(PolycuError, match="PyCUDA is not available"):
        device.import_pycuda()
