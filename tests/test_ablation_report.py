"""scripts/memory_ablation_report.py: the ablation's tables from a summary of one
device run, with the times of one program pooled over the policies that ran it."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _report_module():
    spec = importlib.util.spec_from_file_location(
        "memory_ablation_report", ROOT / "scripts" / "memory_ablation_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SUMMARY = """\
global,gemm,ok,2.0,0.01,p1
read-only,gemm,ok,2.2,0.01,p1
model,gemm,ok,1.0,0.02,p2
global,atax,ok,1.0,0.01,p3
read-only,atax,mismatch,,,p4
model,atax,ok,1.06,0.01,p3
global,durbin,failed,,,
model,durbin,ok,5.0,0.01,p5
"""


def test_policies_that_ran_one_program_share_its_median_time(tmp_path: Path) -> None:
    report = _report_module()
    path = tmp_path / "summary.csv"
    path.write_text(SUMMARY)
    pooled = report.load(str(path))
    assert pooled["gemm"] == {"global": 2.1, "read-only": 2.1, "model": 1.0}
    assert pooled["atax"] == {"global": 1.03, "read-only": None, "model": 1.03}
    assert report.load(str(path), pool=False)["atax"]["model"] == 1.06
    assert report.programs_per_kernel(str(path)) == {"gemm": 2, "atax": 1, "durbin": 1}
    text, relative = report.report(pooled, report.programs_per_kernel(str(path)))
    # only gemm ran under every policy: the means are gemm's
    assert relative == {"global": 2.1, "read-only": 2.1, "model": 1.0}
    assert "| gemm | 2 | 1 | 2.10 | 2.10 |" in text
    assert "Best single fixed policy: global (2.100x the model's time)." in text
    # unpooled, the model (1.06) is more than 5% slower than global (1.00) on atax
    unpooled, _ = report.report(report.load(str(path), pool=False), {})
    assert "atax (1.06x the best)" in unpooled and "slower than the best policy for that " \
        "kernel: none." in text
