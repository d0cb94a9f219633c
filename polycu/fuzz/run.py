"""Run one program through gcc, polycu, the CPU emulation, nvcc and the GPU, and
classify it.

In:  a C file that prints its arrays as ``@ NAME TYPE`` blocks (what ``generate``
emits; the first line may carry ``options="..."`` for polycu).
Out: an ``Outcome``: its class, the stage that decided it, a grouping key and logs.

The emulated build of the whole program runs the tensor-core kernels' mma path
(``EMULATED_MMA``), ``polycu emulate`` their products in C's order, so a contraction
nest tests both.

Classes (``CLASSES``): ``match``; ``mismatch`` (the emulated program prints other
values than gcc's build of the original); ``rejection`` (polycu exits with a
``FILE:LINE:COL: error:`` message); ``crash`` (a traceback, an exit without a located
message, or the generated program failing to build or run: the stage says which);
``timeout``; ``nvcc`` (nvcc fails on an accepted program); ``gpu`` (where a GPU is
present: nvcc's build of the whole program fails to build or run on it, or prints
other values than gcc's build of the original); ``emulate`` (``polycu emulate`` fails
on an accepted program); ``invalid`` (gcc's build of the original fails: a generator
bug, never expected).

The emulation checks the generated code's logic on the CPU; the GPU stage checks
what only the hardware and nvcc decide: CUDA's device overloads and math library,
the texture, surface and tensor-core paths, barriers and atomics as they run.

Every subprocess has a time limit, so a program's wall time is bounded.

Longer than 450 lines because one program's classification is one function whose
stages share the program's work directory, logs and outcome.
"""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from .emit import has_index_array, options_of_text, program_of_text
from .flat import stride_values
from .gpu import GPU_BUILD, PTXAS_O0, gpu_present, nudge_flags, uses_inexact_math
from .outputs import compare_outputs

CLASSES = ("match", "mismatch", "rejection", "crash", "timeout", "nvcc", "gpu", "emulate",
           "invalid")
FAILURES = ("mismatch", "crash", "timeout", "nvcc", "gpu", "emulate", "invalid")
STAGES = ("reference", "compile", "build", "run", "compare", "nvcc", "gpu", "emulate")

#: The emulated program's tensor-core kernels run mma.m16n8k8 (m8n8k4 where a warp's
#: fragment rows do not pair up), warp by warp (``codegen/mma.py``, polycu_emu.h).
EMULATED_MMA = 8

#: gcc's build of the original.  -fno-ivopts: gcc 12 and 13 at -O1 miscompile some
#: loops counting down by 2 (tests/data/fuzz_repro/reference_gcc_ivopts_stride_down.c).
REFERENCE_BUILD = ("gcc", "-O1", "-fno-ivopts", "-std=c99", "-ffp-contract=off")

LOCATED = re.compile(r"^(?P<file>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$",
                     re.M)
UNLOCATED = re.compile(r"^(?P<where>\S*)\s*error: (?P<msg>.*)$", re.M)


@dataclass
class Timeouts:
    compile: float = 120.0      # polycu FILE.c -o OUT.cu, polycu emulate
    build: float = 120.0        # gcc, g++, nvcc
    run: float = 60.0           # the built programs


@dataclass
class Outcome:
    """What happened to one program."""

    name: str
    cls: str = "match"
    stage: str = ""
    key: str = ""               # the cause, for grouping (numbers and names blurred)
    detail: str = ""            # one line
    failures: list[dict] = field(default_factory=list)   # every failed stage
    seconds: dict[str, float] = field(default_factory=dict)
    log: str = ""
    seed: int | None = None

    def fail(self, cls: str, stage: str, key: str, detail: str) -> None:
        self.failures.append({"class": cls, "stage": stage, "key": key, "detail": detail})
        if self.cls in ("match",):
            self.cls, self.stage, self.key, self.detail = cls, stage, key, detail

    def timed_out(self, stage: str, key: str, limit: float) -> None:
        """A ``timeout`` failure: ``key`` gave no answer within ``limit`` seconds."""
        self.fail("timeout", stage, key, f"no answer within {limit:g} s")

    def signature(self) -> tuple[str, str, str]:
        return (self.cls, self.stage, self.key)

    def record(self) -> dict:
        d = asdict(self)
        d.pop("log")
        return d


def polycu_command() -> list[str]:
    return [sys.executable, "-m", "polycu"]


def _run(argv: list[str], timeout: float, cwd: Path | None = None,
         env: dict[str, str] | None = None) -> tuple[int | None, str, str]:
    """(exit status or None on timeout, stdout, stderr).  The command runs in its own
    process group, all of which is killed on timeout (``polycu emulate`` runs the
    reference in a grandchild process)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, env={**os.environ, **(env or {})}, errors="replace",
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        out, err = proc.communicate()
        return None, out or "", err or ""
    except BaseException:
        _kill_group(proc.pid)
        proc.wait()
        raise
    return proc.returncode, out, err


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def blur(text: str) -> str:
    """A message with the parts that vary between programs blurred: quoted text,
    numbers, paths, identifiers of generated names."""
    text = text.replace("&", "").replace("const ", "")
    text = re.sub(r"'[^']*'", "'_'", text)
    text = re.sub(r'"[^"]*"', '"_"', text)
    text = re.sub(r"\S+\.(c|cu|o|so|h)\b", "FILE", text)
    text = re.sub(r"\b[A-Za-z_]*\d+[A-Za-z_\d]*\b", "N", text)
    text = re.sub(r"\d+", "N", text)
    return " ".join(text.split())[:160]


def traceback_key(text: str) -> str:
    """``ExceptionType at file:function`` of the innermost frame of a traceback."""
    frames = re.findall(r'File "([^"]+)", line \d+, in (\S+)', text)
    lines = [l for l in text.strip().splitlines() if l and not l.startswith(" ")]
    last = lines[-1] if lines else "?"
    exc = last.split(":", 1)[0].strip()
    where = ""
    for path, fn in reversed(frames):
        if "polycu" in path:
            where = f"{path.split('polycu/')[-1]}:{fn}"
            break
    return f"{exc} at {where}" if where else exc


# -- the stages ---------------------------------------------------------------------------

def _build_child(argv: list[str]) -> int:
    """``python -c`` entry: build an emitted .cu (and its OUT_host.c, if any) for the
    CPU with polycu's own ``build_program``; exit 1 with the compiler's message."""
    from ..diagnostics import PolycuError
    from ..runtime.programs import ProgramBuild, build_program
    cu, exe = argv
    # build_program compiles OUT_host.c (the two-file layout) with these flags itself
    build = ProgramBuild(defines=(f"POLYCU_EMULATE_MMA={EMULATED_MMA}",),
                         cflags=("-std=c99", "-O1", "-ffp-contract=off"))
    try:
        build_program(Path(cu), Path(exe), build, emulate=True)
    except PolycuError as exc:
        print("\n".join(d.message for d in exc.diagnostics), file=sys.stderr)
        return 1
    return 0


def host_file(cu: Path) -> Path:
    """Where polycu puts the user's program as C in the two-file layout."""
    return cu.with_name(cu.stem + "_host.c")


def compiler_error_key(text: str) -> str:
    for line in text.splitlines():
        if "error" in line.lower():
            return blur(re.split("error", line, maxsplit=1, flags=re.I)[1].lstrip(": "))
    return blur(text.strip().splitlines()[0]) if text.strip() else "no message"


def run_file(path: str | Path, workdir: str | Path, *, stages: Iterable[str] = STAGES,
             options: list[str] | None = None, timeouts: Timeouts | None = None,
             nvcc: str | None = "auto", gpu: bool | None = None, emulate_seed: int = 1,
             extra: Sequence[str] = ()) -> Outcome:
    """Classify one program (see the module docstring).  ``stages`` picks the checks
    (the minimiser runs only those that show the failure it shrinks); ``extra``: polycu
    options added to the program's own (``--polycu-flags``); ``gpu``: run the GPU
    stage (None: where ``gpu_present``)."""
    path, workdir = Path(path).resolve(), Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    stages = set(stages)
    timeouts = timeouts or Timeouts()
    text = path.read_text()
    if options is None:
        options = options_of_text(text)
    # the campaigns test the GPU code: small programs would otherwise stay on the CPU
    options = [*options, *extra, "--run-on", "gpu"]
    if nvcc == "auto":
        nvcc = shutil.which("nvcc")
    out = Outcome(path.stem)
    logs: list[str] = []
    env = {"POLYCU_CACHE_DIR": str(workdir / "cache")}

    def command(title: str, argv: list[str], limit: float, *, cwd: Path | None = None,
                env: dict[str, str] | None = None,
                shown: int | None = None) -> tuple[int | None, str, str]:
        """``_run``, logged: the command, its exit, the end of its stdout (the last
        ``shown`` characters, 6000 at most) and of its stderr."""
        rc, stdout, stderr = _run(argv, limit, cwd=cwd, env=env)
        seen = stdout if shown is None else stdout[-shown:]
        logs.append(f"== {title}: {' '.join(argv) if argv else ''}\n-- exit: "
                    f"{'timeout' if rc is None else rc}\n"
                    + (f"-- stdout:\n{seen[-6000:]}\n" if seen.strip() else "")
                    + (f"-- stderr:\n{stderr[-6000:]}\n" if stderr.strip() else ""))
        return rc, stdout, stderr

    def timed(stage: str, start: float) -> None:
        out.seconds[stage] = round(time.monotonic() - start, 3)

    def ptxas_suspect() -> str:
        """'ptxas: ' when the build with ptxas -O0 (``gpu.PTXAS_O0``) prints the
        reference's values: a failure kept apart, ptxas's optimiser likely at fault."""
        exe = workdir / "on_gpu_ptxas_O0"
        argv = [nvcc, *PTXAS_O0, str(cu), *([str(host)] if host.exists() else []), "-lm",
                "-o", str(exe)]
        if command("GPU build, ptxas -O0", argv, timeouts.build, cwd=workdir)[0] != 0:
            return ""
        rc, printed, _ = command("GPU run, ptxas -O0", [str(exe)], timeouts.run, shown=0)
        return "ptxas: " if rc == 0 and compare_outputs(expected, printed) is None else ""

    def ill_conditioned() -> bool:
        """Whether the reference prints other values with its libm results an ulp
        off (``fuzz/gpu.py``)."""
        exe = workdir / "nudged"
        argv = [*REFERENCE_BUILD, *nudge_flags(workdir / "nudge.h"), str(path), "-lm",
                "-o", str(exe)]
        if command("reference, libm nudged", argv, timeouts.build)[0] != 0:
            return False
        rc, nudged, _ = command("nudged run", [str(exe)], timeouts.run, shown=0)
        return rc == 0 and compare_outputs(expected, nudged) is not None

    try:
        # 1. the reference: gcc's build of the original
        t0 = time.monotonic()
        ref_exe = workdir / "reference"
        argv = [*REFERENCE_BUILD, str(path), "-lm", "-o", str(ref_exe)]
        rc, so, se = command("reference build", argv, timeouts.build)
        if rc != 0:
            out.fail("invalid", "reference", "gcc cannot build the original", blur(se)[:200])
            return out
        rc, expected, se = command("reference run", [str(ref_exe)], timeouts.run, shown=2000)
        timed("reference", t0)
        if rc != 0:
            out.fail("invalid", "reference", "the original program fails",
                     f"exit {rc}: {se.strip()[:200]}")
            return out

        # 2. polycu FILE.c -o OUT.cu
        t0 = time.monotonic()
        cu = workdir / "out.cu"
        argv = [*polycu_command(), str(path), "-o", str(cu), *options]
        rc, so, se = command("polycu", argv, timeouts.compile, env=env)
        timed("compile", t0)
        if rc is None:
            out.timed_out("compile", "polycu compile", timeouts.compile)
            return out
        if "Traceback (most recent call last)" in se:
            key = traceback_key(se)
            out.fail("crash", "compile", key, se.strip().splitlines()[-1][:300])
            return out
        if rc != 0:
            located = LOCATED.search(se)
            if located and rc == 1:
                out.cls, out.stage = "rejection", "compile"
                out.key = blur(located.group("msg"))
                out.detail = located.group(0)[:300]
                if Path(located.group("file")).name != path.name:
                    out.detail += f" (located in {located.group('file')}, not the input)"
                return out
            line = (UNLOCATED.search(se) or LOCATED.search(se))
            key = "exit without a located message" if rc == 1 else f"exit {rc}"
            out.fail("crash", "compile", key, (line.group(0) if line else se.strip()[-300:])[:300])
            return out
        if not cu.exists():
            out.fail("crash", "compile", "no output file", "polycu exited 0 but wrote no .cu")
            return out
        if "no SCoP" in se:
            out.detail = "no SCoP found"
        host = host_file(cu)

        # 3. the generated program built for the CPU and run, compared with the reference
        if {"build", "run", "compare"} & stages:
            t0 = time.monotonic()
            exe = workdir / "emulated"
            argv = [sys.executable, "-c", "import sys; from polycu.fuzz.run import _build_child; "
                    "sys.exit(_build_child(sys.argv[1:]))", str(cu), str(exe)]
            title = "emulated build" + (" (with _host.c)" if host.exists() else "")
            rc, so, se = command(title, argv, timeouts.build, env=env)
            timed("build", t0)
            if rc is None:
                out.timed_out("build", "emulated build", timeouts.build)
            elif rc != 0:
                out.fail("crash", "build", compiler_error_key(se), _first_error(se))
            else:
                from ..runtime.emulate import emulation_env
                t0 = time.monotonic()
                rc, actual, se = command("emulated run", [str(exe)], timeouts.run,
                                         env=emulation_env(), shown=2000)
                timed("run", t0)
                if rc is None:
                    out.timed_out("run", "emulated run", timeouts.run)
                elif rc != 0:
                    out.fail("crash", "run", *_failed_run(rc, se))
                elif "compare" in stages:
                    diff = compare_outputs(expected, actual)
                    if diff:
                        logs.append(f"== comparison\n{diff}\n")
                        out.fail("mismatch", "compare", "mismatch", diff[:400])

        # 4. nvcc
        if "nvcc" in stages and nvcc:
            t0 = time.monotonic()
            argv = [nvcc, "-arch=sm_90", "-c", str(cu), "-o", str(workdir / "out.o")]
            rc, so, se = command("nvcc", argv, timeouts.build, cwd=workdir)
            timed("nvcc", t0)
            if rc is None:
                out.timed_out("nvcc", "nvcc", timeouts.build)
            elif rc != 0:
                out.fail("nvcc", "nvcc", compiler_error_key(se), _first_error(se))

        # 5. the whole program built by nvcc, run on the GPU, compared with the reference
        if "gpu" in stages and nvcc and (gpu_present() if gpu is None else gpu):
            t0 = time.monotonic()
            exe = workdir / "on_gpu"
            argv = [nvcc, *GPU_BUILD, str(cu), *([str(host)] if host.exists() else []), "-lm",
                    "-o", str(exe)]
            rc, so, se = command("GPU build", argv, timeouts.build, cwd=workdir)
            if rc is None:
                out.timed_out("gpu", "GPU build", timeouts.build)
            elif rc != 0:
                out.fail("gpu", "gpu", "build: " + compiler_error_key(se), _first_error(se))
            else:
                rc, actual, se = command("GPU run", [str(exe)], timeouts.run, shown=2000)
                if rc is None:
                    out.timed_out("gpu", "GPU run", timeouts.run)
                elif rc != 0:
                    key, detail = _failed_run(rc, se)
                    out.fail("gpu", "gpu", ptxas_suspect() + "run: " + key, detail)
                else:
                    diff = compare_outputs(expected, actual)
                    if diff:
                        logs.append(f"== comparison with the GPU's output\n{diff}\n")
                    if diff and uses_inexact_math(text) and ill_conditioned():
                        out.detail = ("GPU output not judged: the reference itself "
                                      "changes with its math results an ulp off")
                    elif diff:
                        out.fail("gpu", "gpu", ptxas_suspect() + "mismatch", diff[:400])
            timed("gpu", t0)

        # 6. polycu emulate: polycu's own check on random inputs
        if "emulate" in stages:
            t0 = time.monotonic()
            argv = [*polycu_command(), "emulate", str(path), "--seed", str(emulate_seed), *options]
            rc, so, se = command("polycu emulate", argv, timeouts.compile, env=env)
            fixed = _fixed_parameters(text, se) if rc == 1 else None
            if fixed:
                # no parameter values in 1..37 keep the accesses in bounds (arrays are
                # sized for the program's own values): check at the program's values
                argv = argv + [f"--param={name}={value}" for name, value in fixed]
                rc, so, se = command("polycu emulate at the program's parameter values", argv,
                                     timeouts.compile, env=env)
            timed("emulate", t0)
            if rc is None:
                out.timed_out("emulate", "polycu emulate", timeouts.compile)
            elif "Traceback (most recent call last)" in se:
                out.fail("emulate", "emulate", "traceback: " + traceback_key(se),
                         se.strip().splitlines()[-1][:300])
            elif rc != 0 and "random inputs keep every index inside its array" in se \
                    and has_index_array(text):
                # random data sends such subscripts anywhere: the program's own data
                # are checked by the nvcc build against gcc's (stage 4)
                logs.append("-- emulate: not applicable on random inputs (subscripts "
                            "depend on an index array)")
            elif rc != 0:
                located = LOCATED.search(se)
                msg = located.group("msg") if located else se.strip()[-300:]
                if "differ from the CPU reference" in msg:
                    key = "mismatch"
                elif "failed to build" in msg:
                    key = "build: " + compiler_error_key(se.split("failed to build", 1)[1])
                elif "keep every access inside" in msg:
                    key = "error: " + blur(msg.split(" and satisfy the context")[0])
                elif located:
                    key = "error: " + blur(msg)
                else:
                    key = "unlocated error: " + blur(msg)
                out.fail("emulate", "emulate", key, (located.group(0) if located else msg)[:300])
        return out
    finally:
        out.log = "\n".join(logs)
        out.seconds["total"] = round(sum(v for k, v in out.seconds.items() if k != "total"), 3)


_NO_PARAMETERS = re.compile(r"no values of the parameters .* keep every access inside its "
                            r"array and satisfy the context \[([^\]]*)\] ->")


def _fixed_parameters(text: str, stderr: str) -> list[tuple[str, int]] | None:
    """The program's own values of the parameters that ``polycu emulate`` could not
    choose (from the structure embedded in a generated file), or None."""
    found = _NO_PARAMETERS.search(stderr)
    program = program_of_text(text) if found else None
    if program is None:
        return None
    values = {p["name"]: int(p["value"]) for p in program.params} | stride_values(text)
    values.update({s["name"]: int(s["init"]) for s in program.scalars
                   if s["kind"] == "arg" and s["type"] not in ("float", "double")})
    names = [n.strip() for n in found.group(1).split(",") if n.strip()]
    if not all(n in values for n in names):
        return None
    return [(n, values[n]) for n in names]


def _failed_run(rc: int, stderr: str) -> tuple[str, str]:
    """(key, detail) of a built program that exited ``rc`` != 0: the signal or status
    and its last line of stderr (polycu's runtime checks print their cause there)."""
    why = f"killed by signal {-rc}" if rc < 0 else f"exit {rc}"
    msg = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    return blur(f"{why} {msg.split('polycu:', 1)[-1]}"), f"{why}: {msg[:250]}"


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:300]
    return text.strip()[:300]


def run_text(text: str, name: str, **kwargs) -> Outcome:
    """``run_file`` on a program given as text, in a temporary directory."""
    with tempfile.TemporaryDirectory(prefix="polycu-fuzz-") as tmp:
        source = Path(tmp) / f"{name}.c"
        source.write_text(text)
        return run_file(source, Path(tmp) / "work", **kwargs)
