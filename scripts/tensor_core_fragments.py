"""How polycu's FP64 tensor-core gemm kernel feeds its fragments, prototyped on the
device beside cuBLAS (CuPy) in one process (session 18):

    python3 scripts/tensor_core_fragments.py OUT.json [1|2]  # on the device: time a round
    python3 scripts/tensor_core_fragments.py --emit N       # print variant N's CUDA

Two levers over the session-17 kernel (``scripts/tensor_core_prototype.py``, 0.137 ms):

* the instruction: mma.m8n8k4 (sm_80) or the sm_90 shapes m16n8k4, m16n8k8, m16n8k16,
  which do 2, 4 or 8 times the work per instruction;
* relabelling.  k is summed over, so any bijection between the hardware's k index
  and memory's may be used as long as A and B use the same one; and which output
  column a fragment's column c stands for is ours to choose.  With k = 4 t + s
  (s = 0..3 within a strip of 16) lane (g, t) reads A[row][4t..4t+3], contiguous,
  and with column n * 1 + nt * c the nt fragments' B values of one row are
  contiguous too: 16-byte shared loads instead of 8-byte ones, half the instructions.
  The shared tiles' row strides and B's per-row skew are chosen so that no 16-byte
  load has a bank conflict (``_stride``, ``_skew``: checked by enumeration).
"""
import itertools
import json
import sys

SHAPES = {  # name: (M, K) of one mma.sync; N is 8
    "m8n8k4": (8, 4), "m16n8k4": (16, 4), "m16n8k8": (16, 8), "m16n8k16": (16, 16)}
STRIP = 16
NI, NJ, NK = 1000, 1100, 1200      # tensor_core_prototype.problem's (PolyBench gemm LARGE)


def _mma_helper(shape: str) -> str:
    m, k = SHAPES[shape]
    na, nb, nc = m * k // 32, k // 4, m // 4
    d = ", ".join(f"%{i}" for i in range(nc))
    a = ", ".join(f"%{nc + i}" for i in range(na))
    b = ", ".join(f"%{nc + na + i}" for i in range(nb))
    args = ", ".join([f"double &d{i}" for i in range(nc)] + [f"double a{i}" for i in range(na)]
                     + [f"double b{i}" for i in range(nb)])
    outs = ", ".join(f'"+d"(d{i})' for i in range(nc))
    ins = ", ".join([f'"d"(a{i})' for i in range(na)] + [f'"d"(b{i})' for i in range(nb)])
    return (f"__device__ __forceinline__ void mma({args}) {{\n"
            f'  asm volatile("mma.sync.aligned.{shape}.row.col.f64.f64.f64.f64 '
            f'{{{d}}}, {{{a}}}, {{{b}}}, {{{d}}};" : {outs} : {ins});\n}}\n')


HELPERS = r"""
#define CP16(dst, src, n) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: \
  "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(n))
#define COMMIT() asm volatile("cp.async.commit_group;")
#define WAIT(n) asm volatile("cp.async.wait_group %0;" :: "n"(n))
"""


def _conflict_free(addresses) -> bool:
    """addresses[lane] (in doubles) of one 16-byte load: each quarter warp's eight
    loads must cover the 32 banks once."""
    for p in range(4):
        slots = {(addresses[lane] // 2) % 8 for lane in range(8 * p, 8 * p + 8)}
        if len(slots) != 8:
            return False
    return True


def _stride(rows_of, lo: int) -> int:
    """The least even row stride >= lo at which every lane's 16-byte loads of A's
    rows rows_of(g) at columns 4 t, 4 t + 2 are conflict-free."""
    for s in range(lo + lo % 2, lo + 34, 2):
        if all(_conflict_free([r(lane // 4) * s + 4 * (lane % 4) + h for lane in range(32)])
               for r in rows_of for h in (0, 2)):
            return s
    raise ValueError("no stride")


def _skew(bn: int, nt: int):
    """Row stride and per-t skew of B's tile (row 4 t + s starts at its stride times
    the row plus skew[t]) making lane (g, t)'s loads of nt * g + 2 h conflict-free."""
    for stride in range(bn, bn + 18, 2):
        for skew in itertools.product(range(0, 16, 2), repeat=3):
            sk = (0,) + skew
            if all(_conflict_free([(4 * (lane % 4) + s) * stride + sk[lane % 4] + nt * (lane // 4)
                                   + 2 * h for lane in range(32)])
                   for s in range(4) for h in range(nt // 2)):
                return stride, sk
    raise ValueError("no skew")


def source(bm, bn, wr, wc, stages, shape, relabel, alt=False, minb=1):
    """gemm C = C + alpha A B, A ni x nk and B nk x nj row-major, as CUDA text."""
    M, K = SHAPES[shape]
    threads = wr * wc * 32
    wm, wn = bm // wr, bn // wc
    mt, nt = wm // M, wn // 8
    na, nb = M * K // 32, K // 4
    if relabel:
        sx_stride = _stride([(lambda g, r=r: g + 8 * r) for r in range(M // 8)], STRIP)
        sy_stride, skew = _skew(bn, nt)
    else:
        sx_stride, sy_stride, skew = STRIP + 4, bn + 4, (0, 0, 0, 0)
    sxs, sys_ = bm * sx_stride, STRIP * sy_stride + max(skew)
    sys_ += sys_ % 2

    def arow(i):  # (row offset, j) of A register i
        if M == 8:
            return 0, i
        return ((8 * (i // nb), i % nb) if alt else (8 * (i % 2), i // 2))

    def brow(k):
        return f"({k}) * {sy_stride} + sk"

    body = []
    # A: every (m, row offset, k) value the strip needs
    aval = {}
    for m in range(mt):
        for roff in range(0, M, 8):
            base = f"sx + buf * {sxs} + (wi + {M * m + roff} + g) * {sx_stride}"
            if relabel:
                for h in (0, 2):
                    v = f"a_{m}_{roff}_{h}"
                    body.append(f"const double2 {v} = *(const double2 *)({base} + 4 * t + {h});")
                    aval[(m, roff, h)] = f"{v}.x"
                    aval[(m, roff, h + 1)] = f"{v}.y"
            else:
                for s in range(STRIP // 4):
                    v = f"a_{m}_{roff}_{s}"
                    body.append(f"const double {v} = ({base})[{s * 4} + t];")
                    aval[(m, roff, s)] = v
    bval = {}
    for s in range(STRIP // 4):
        if relabel:
            for h in range(0, nt, 2):
                v = f"b_{s}_{h}"
                body.append(f"const double2 {v} = *(const double2 *)(sy + buf * {sys_} + "
                            f"{brow(f'4 * t + {s}')} + wj + {nt} * g + {h});")
                bval[(s, h)] = f"{v}.x"
                bval[(s, h + 1)] = f"{v}.y"
        else:
            for n in range(nt):
                v = f"b_{s}_{n}"
                body.append(f"const double {v} = sy[buf * {sys_} + ({s * 4} + t) * {sy_stride} "
                            f"+ wj + 8 * {n} + g];")
                bval[(s, n)] = v
    for u in range(STRIP // K):
        for m in range(mt):
            for n in range(nt):
                ops = [f"acc[{m}][{n}][{c}]" for c in range(M // 4)]
                for i in range(na):
                    roff, j = arow(i)
                    s = u * (K // 4) + j  # relabelled: k = 4t + s; plain: k = 4 s + t
                    ops.append(aval[(m, roff, s)])
                for j in range(nb):
                    s = u * (K // 4) + j
                    key = (s, n)
                    ops.append(bval[key])
                body.append(f"mma({', '.join(ops)});")
    inner = "\n    ".join(body)
    relabelled_col = "nt_ * (2 * t + e) + n" if relabel else "8 * n + 2 * t + e"
    text = HELPERS + _mma_helper(shape) + f"""
extern "C" __global__ void __launch_bounds__({threads}, {minb}) gemm(int ni, int nj, int nk, double alpha,
    double *__restrict__ C, const double *__restrict__ A, const double *__restrict__ B)
{{
  extern __shared__ __align__(16) double smem[];
  double *sx = smem, *sy = smem + {stages * sxs};
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
  const int wi = warp / {wc} * {wm}, wj = warp % {wc} * {wn};
  const int i0 = {bm} * blockIdx.y, j0 = {bn} * blockIdx.x;
  const int strips = (nk + {STRIP - 1}) / {STRIP};
  const int sk = {skew[1]} * (t == 1) + {skew[2]} * (t == 2) + {skew[3]} * (t == 3);
  const int nt_ = {nt};
  auto copy = [&](int s) {{
    if (s < strips) {{
      const int base = s * {STRIP}, buf = s % {stages};
      for (int q = tid; q < {bm * STRIP // 2}; q += {threads}) {{
        const int i = i0 + q / {STRIP // 2}, k = base + 2 * (q % {STRIP // 2});
        const int n = (i < ni) ? max(0, min(2, nk - k)) * 8 : 0;
        CP16(&sx[buf * {sxs} + (q / {STRIP // 2}) * {sx_stride} + 2 * (q % {STRIP // 2})],
             A + (n ? i * nk + k : 0), n);
      }}
      for (int q = tid; q < {STRIP * bn // 2}; q += {threads}) {{
        const int kr = q / {bn // 2}, j = j0 + 2 * (q % {bn // 2}), k = base + kr;
        const int n = (k < nk) ? max(0, min(2, nj - j)) * 8 : 0;
        const int skr = {skew[1]} * (kr / 4 == 1) + {skew[2]} * (kr / 4 == 2) + {skew[3]} * (kr / 4 == 3);
        CP16(&sy[buf * {sys_} + kr * {sy_stride} + skr + 2 * (q % {bn // 2})],
             B + (n ? k * nj + j : 0), n);
      }}
    }}
    COMMIT();
  }};
  for (int s = 0; s < {stages - 1}; s++) copy(s);
  double acc[{mt}][{nt}][{M // 4}];
  #pragma unroll
  for (int m = 0; m < {mt}; m++)
    #pragma unroll
    for (int n = 0; n < {nt}; n++)
      #pragma unroll
      for (int c = 0; c < {M // 4}; c++) acc[m][n][c] = 0.0;
  for (int s = 0; s < strips; s++) {{
    WAIT({stages - 2});
    __syncthreads();
    copy(s + {stages - 1});
    const int buf = s % {stages};
    {inner}
  }}
  WAIT(0);
  #pragma unroll
  for (int m = 0; m < {mt}; m++)
    #pragma unroll
    for (int n = 0; n < {nt}; n++)
      #pragma unroll
      for (int c = 0; c < {M // 4}; c++) {{
        const int e = c % 2;
        const int i = i0 + wi + {M} * m + g + 8 * (c / 2), j = j0 + wj + {relabelled_col};
        if (i < ni && j < nj) C[i * nj + j] += alpha * acc[m][n][c];
      }}
}}
"""
    return text, threads, 8 * stages * (sxs + sys_)


ROUND1 = [
    # bm, bn, wr, wc, stages, shape, relabel, alt[, min blocks per SM]
    (48, 64, 3, 2, 3, "m8n8k4", False, False),
    (48, 64, 3, 2, 3, "m8n8k4", True, False),
    (48, 64, 3, 2, 3, "m16n8k16", False, False),
    (48, 64, 3, 2, 3, "m16n8k16", False, True),
    (48, 64, 3, 2, 3, "m16n8k16", True, False),
    (48, 64, 3, 2, 3, "m16n8k16", True, True),
    (48, 64, 3, 2, 3, "m16n8k8", True, False),
    (48, 64, 3, 2, 3, "m16n8k4", True, False),
    (48, 64, 3, 2, 4, "m16n8k16", True, False),
    (32, 64, 2, 2, 3, "m16n8k16", True, False),
    (64, 64, 2, 2, 3, "m16n8k16", True, False),
    (64, 64, 4, 1, 3, "m16n8k16", True, False),
    (96, 64, 3, 2, 3, "m16n8k16", True, False),
    (64, 128, 2, 2, 3, "m16n8k16", True, False),
    (128, 64, 4, 2, 3, "m16n8k16", True, False),
    (64, 96, 2, 3, 3, "m16n8k16", True, False),
    (96, 96, 3, 3, 3, "m16n8k16", True, False),
    (128, 128, 4, 4, 3, "m16n8k16", True, False),
    (32, 128, 2, 4, 3, "m16n8k16", True, False),
    (64, 64, 2, 2, 4, "m8n8k4", True, False),
    (48, 64, 3, 2, 3, "m16n8k16", True, False, 2),
    (48, 64, 3, 2, 3, "m16n8k16", True, False, 3),
    (48, 64, 3, 2, 3, "m16n8k8", True, False, 3),
    (48, 64, 3, 2, 3, "m8n8k4", True, False, 3),
    (64, 64, 2, 2, 3, "m16n8k16", True, False, 2),
    (96, 64, 3, 2, 3, "m16n8k16", True, False, 2),
    (64, 128, 2, 2, 3, "m16n8k16", True, False, 2),
]
ROUND2 = [   # plain layouts with the sm_90 shapes, and the register cap for 3 blocks an SM
    (48, 64, 3, 2, 3, "m8n8k4", False, False),
    (48, 64, 3, 2, 3, "m16n8k16", False, False),
    (48, 64, 3, 2, 3, "m16n8k16", False, False, 3),
    (48, 64, 3, 2, 3, "m16n8k8", False, False),
    (48, 64, 3, 2, 3, "m16n8k8", False, False, 3),
    (48, 64, 3, 2, 3, "m16n8k4", False, False, 3),
    (48, 64, 3, 2, 4, "m16n8k16", False, False, 3),
    (48, 64, 3, 2, 3, "m16n8k16", True, False, 3),
    (48, 64, 3, 2, 3, "m16n8k8", True, False, 3),
    (96, 64, 3, 2, 3, "m16n8k16", False, False, 2),
    (96, 64, 3, 2, 3, "m16n8k16", True, False, 2),
    (64, 64, 2, 2, 3, "m16n8k16", False, False, 3),
    (32, 64, 2, 2, 3, "m16n8k16", False, False, 5),
    (96, 96, 3, 3, 3, "m16n8k16", False, False),
    (48, 64, 3, 2, 3, "m8n8k4", False, False),
]
VARIANTS = ROUND1 + ROUND2


def main():
    if sys.argv[1] == "--emit":
        print(source(*VARIANTS[int(sys.argv[2])])[0])
        return
    import cupy as cp
    import numpy as np
    from tensor_core_prototype import problem, timed   # timed: CUDA events, median of 50
    A, B, C0, alpha, want, out = problem(18)
    rows = [{"variant": "cuBLAS (cupy.matmul)", "ms": timed(lambda: cp.matmul(A, B, out=out))}]
    print(rows[0], flush=True)
    for v in ROUND2 if sys.argv[2:] == ["2"] else ROUND1:
        bm, bn, wr, wc, stages, shape, relabel, alt = v[:8]
        name = (f"{bm}x{bn} {wr}x{wc}w st{stages} {shape}{' relabel' if relabel else ''}"
                f"{' alt' if alt else ''}{f' minb{v[8]}' if len(v) > 8 else ''}")
        try:
            text, threads, shared = source(*v)
            kernel = cp.RawKernel(text, "gemm", options=("-std=c++17", "--fmad=true"))
            kernel.max_dynamic_shared_size_bytes = shared
            grid = ((NJ + bn - 1) // bn, (NI + bm - 1) // bm)
            args = (np.int32(NI), np.int32(NJ), np.int32(NK), np.float64(alpha))
            C = C0.copy()
            kernel(grid, (threads,), args + (C, A, B), shared_mem=shared)
            err = float(cp.max(cp.abs(C - want)) / cp.max(cp.abs(want)))
            ms = timed(lambda: kernel(grid, (threads,), args + (C, A, B), shared_mem=shared))
            row = {"variant": name, "ms": ms, "err": err, "shared": shared,
                   "regs": kernel.attributes.get("num_regs"), "blocks": grid[0] * grid[1]}
        except Exception as exc:  # noqa: BLE001 -- a variant that fails is reported
            row = {"variant": name, "error": str(exc)[:400]}
        rows.append(row)
        print(row, flush=True)
    rows.append({"variant": "cuBLAS again", "ms": timed(lambda: cp.matmul(A, B, out=out))})
    print(rows[-1])
    json.dump({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
               "sizes": f"ni={NI} nj={NJ} nk={NK} (PolyBench gemm LARGE)",
               "timing": "CUDA events around one launch, median of 50",
               "rows": rows}, open(sys.argv[1], "w"), indent=1)


if __name__ == "__main__":
    main()
