"""Variants of polycu's FP64 tensor-core gemm kernel (codegen/tensor.py), timed beside
cuBLAS (CuPy) in one process on the device: python3 scripts/tensor_core_prototype.py OUT.json
(session 17; the results are in docs/results/memory.md, run s17)."""
import json
import sys

import cupy as cp
import numpy as np

NI, NJ, NK = 1000, 1100, 1200
PAD = 4

HELPERS = r"""
__device__ __forceinline__ void mma(double &d0, double &d1, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
}
#define CP8(dst, src, ok) asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: \
  "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"((ok) ? 8 : 0))
#define CP16(dst, src, n) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: \
  "r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src), "r"(n))
#define COMMIT() asm volatile("cp.async.commit_group;")
#define WAIT(n) asm volatile("cp.async.wait_group %0;" :: "n"(n))
"""


def source(bm, bn, wr, wc, strip, stages, epilogue, vec, prefetch=False):
    threads = wr * wc * 32
    mt, nt = bm // wr // 8, bn // wc // 8
    sxs, sys_ = bm * (strip + PAD), strip * (bn + PAD)
    scale = "" if epilogue else "alpha * "
    if vec == 1:
        copy_x = f"""
      for (int q = tid; q < {bm * strip}; q += {threads}) {{
        const int i = i0 + q / {strip}, k = base + q % {strip};
        const bool ok = i < ni && k < nk;
        CP8(&sx[buf * {sxs} + (q / {strip}) * {strip + PAD} + q % {strip}], A + (ok ? i * nk + k : 0), ok);
      }}
      for (int q = tid; q < {strip * bn}; q += {threads}) {{
        const int j = j0 + q % {bn}, k = base + q / {bn};
        const bool ok = j < nj && k < nk;
        CP8(&sy[buf * {sys_} + (q / {bn}) * {bn + PAD} + q % {bn}], B + (ok ? k * nj + j : 0), ok);
      }}"""
    else:
        copy_x = f"""
      for (int q = tid; q < {bm * strip // 2}; q += {threads}) {{
        const int i = i0 + q / {strip // 2}, k = base + 2 * (q % {strip // 2});
        const int n = (i < ni) ? max(0, min(2, nk - k)) * 8 : 0;
        CP16(&sx[buf * {sxs} + (q / {strip // 2}) * {strip + PAD} + 2 * (q % {strip // 2})], A + (n ? i * nk + k : 0), n);
      }}
      for (int q = tid; q < {strip * bn // 2}; q += {threads}) {{
        const int j = j0 + 2 * (q % {bn // 2}), k = base + q / {bn // 2};
        const int n = (k < nk) ? max(0, min(2, nj - j)) * 8 : 0;
        CP16(&sy[buf * {sys_} + (q / {bn // 2}) * {bn + PAD} + 2 * (q % {bn // 2})], B + (n ? k * nj + j : 0), n);
      }}"""
    init = "0.0" if epilogue else "C[i * nj + j]"
    store = "C[i * nj + j] + alpha * acc[m][n][e]" if epilogue else "acc[m][n][e]"
    kloop = eval("f" + repr(PF if prefetch else PLAIN), globals(), locals())
    return HELPERS + f"""
extern "C" __global__ void __launch_bounds__({threads}) gemm(int ni, int nj, int nk, double alpha,
    double *__restrict__ C, const double *__restrict__ A, const double *__restrict__ B)
{{
  extern __shared__ __align__(16) double smem[];
  double *sx = smem, *sy = smem + {stages * sxs};
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, g = lane / 4, t = lane % 4;
  const int wi = warp / {wc} * {bm // wr}, wj = warp % {wc} * {bn // wc};
  const int i0 = {bm} * blockIdx.y, j0 = {bn} * blockIdx.x;
  const int strips = (nk + {strip - 1}) / {strip};
  auto copy = [&](int s) {{
    if (s < strips) {{
      const int base = s * {strip}, buf = s % {stages};{copy_x}
    }}
    COMMIT();
  }};
  for (int s = 0; s < {stages - 1}; s++) copy(s);
  double acc[{mt}][{nt}][2];
  #pragma unroll
  for (int m = 0; m < {mt}; m++)
    #pragma unroll
    for (int n = 0; n < {nt}; n++)
      #pragma unroll
      for (int e = 0; e < 2; e++) {{
        const int i = i0 + wi + 8 * m + g, j = j0 + wj + 8 * n + 2 * t + e;
        acc[m][n][e] = (i < ni && j < nj) ? {init} : 0.0;
      }}
  for (int s = 0; s < strips; s++) {{
    WAIT({stages - 2});
    __syncthreads();
    copy(s + {stages - 1});
    const int buf = s % {stages};
{kloop}  WAIT(0);
  #pragma unroll
  for (int m = 0; m < {mt}; m++)
    #pragma unroll
    for (int n = 0; n < {nt}; n++)
      #pragma unroll
      for (int e = 0; e < 2; e++) {{
        const int i = i0 + wi + 8 * m + g, j = j0 + wj + 8 * n + 2 * t + e;
        if (i < ni && j < nj) C[i * nj + j] = {store};
      }}
}}
""", threads, 8 * stages * (sxs + sys_)


PLAIN = '    #pragma unroll\n    for (int kk = 0; kk < {strip}; kk += 4) {{\n      double a[{mt}], b[{nt}];\n      #pragma unroll\n      for (int m = 0; m < {mt}; m++) a[m] = {scale}sx[buf * {sxs} + (wi + 8 * m + g) * {strip + PAD} + kk + t];\n      #pragma unroll\n      for (int n = 0; n < {nt}; n++) b[n] = sy[buf * {sys_} + (kk + t) * {bn + PAD} + wj + 8 * n + g];\n      #pragma unroll\n      for (int m = 0; m < {mt}; m++)\n        #pragma unroll\n        for (int n = 0; n < {nt}; n++) mma(acc[m][n][0], acc[m][n][1], a[m], b[n]);\n    }}\n  }}\n'
PF = '    double a[2][{mt}], b[2][{nt}];\n    #pragma unroll\n    for (int m = 0; m < {mt}; m++) a[0][m] = {scale}sx[buf * {sxs} + (wi + 8 * m + g) * {strip + PAD} + t];\n    #pragma unroll\n    for (int n = 0; n < {nt}; n++) b[0][n] = sy[buf * {sys_} + t * {bn + PAD} + wj + 8 * n + g];\n    #pragma unroll\n    for (int kk = 0; kk < {strip}; kk += 4) {{\n      const int cur = (kk / 4) % 2;\n      if (kk + 4 < {strip}) {{\n        #pragma unroll\n        for (int m = 0; m < {mt}; m++) a[cur ^ 1][m] = {scale}sx[buf * {sxs} + (wi + 8 * m + g) * {strip + PAD} + kk + 4 + t];\n        #pragma unroll\n        for (int n = 0; n < {nt}; n++) b[cur ^ 1][n] = sy[buf * {sys_} + (kk + 4 + t) * {bn + PAD} + wj + 8 * n + g];\n      }}\n      #pragma unroll\n      for (int m = 0; m < {mt}; m++)\n        #pragma unroll\n        for (int n = 0; n < {nt}; n++) mma(acc[m][n][0], acc[m][n][1], a[cur][m], b[cur][n]);\n    }}\n  }}\n'


def timed(fn, reps=50):
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(5):
        fn()
    for _ in range(reps):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def problem(seed):
    """gemm LARGE's operands on the device: A, B, C0, alpha, C0 + alpha A B (cuBLAS's)
    and an output for cuBLAS."""
    rng = np.random.default_rng(seed)
    A = cp.asarray(rng.uniform(-1, 1, (NI, NK)))
    B = cp.asarray(rng.uniform(-1, 1, (NK, NJ)))
    C0 = cp.asarray(rng.uniform(-1, 1, (NI, NJ)))
    alpha = 1.5
    return A, B, C0, alpha, C0 + alpha * (A @ B), cp.empty_like(C0)


def main():
    A, B, C0, alpha, want, out = problem(17)

    def cublas():
        cp.matmul(A, B, out=out)
    variants = [
        # bm bn wr wc strip stages epilogue vec prefetch
        (48, 64, 3, 2, 8, 4, False, 1, False),
        (48, 64, 3, 2, 8, 4, True, 1, False),
        (48, 64, 3, 2, 16, 3, False, 2, False),
        (48, 64, 3, 2, 16, 3, True, 2, False),
        (48, 64, 3, 2, 16, 3, True, 2, True),
        (48, 64, 3, 2, 16, 3, True, 1, False),
        (48, 64, 3, 2, 16, 4, True, 2, False),
        (48, 64, 3, 2, 16, 4, True, 2, True),
        (48, 64, 3, 2, 8, 4, True, 2, False),
        (48, 64, 3, 2, 8, 4, True, 2, True),
        (64, 64, 2, 2, 16, 3, True, 2, True),
        (64, 64, 2, 2, 16, 4, True, 2, True),
        (96, 64, 3, 2, 16, 3, True, 2, True),
        (48, 128, 3, 2, 16, 2, True, 2, True),
        (48, 128, 3, 2, 8, 4, True, 2, True),
        (32, 64, 2, 2, 16, 3, True, 2, True),
        (48, 64, 3, 2, 16, 3, False, 2, True),
        (48, 64, 3, 2, 8, 4, False, 1, False),
    ]
    rows = [{"variant": "cuBLAS (cupy.matmul)", "ms": timed(cublas)}]
    print(rows[0], flush=True)
    for v in variants:
        bm, bn, wr, wc, strip, stages, epilogue, vec, prefetch = v
        text, threads, shared = source(*v)
        try:
            kernel = cp.RawKernel(text, "gemm", options=("-std=c++17", "--fmad=true"))
            kernel.max_dynamic_shared_size_bytes = shared
            grid = ((NJ + bn - 1) // bn, (NI + bm - 1) // bm)
            C = C0.copy()
            kernel(grid, (threads,), (np.int32(NI), np.int32(NJ), np.int32(NK), np.float64(alpha),
                                       C, A, B), shared_mem=shared)
            err = float(cp.max(cp.abs(C - want)) / cp.max(cp.abs(want)))

            def run():
                kernel(grid, (threads,), (np.int32(NI), np.int32(NJ), np.int32(NK),
                                           np.float64(alpha), C, A, B), shared_mem=shared)
            ms = timed(run)
            attrs = kernel.attributes
            row = {"variant": f"{bm}x{bn} {wr}x{wc}w strip{strip} st{stages} "
                              f"{'epi' if epilogue else 'inner'} v{vec}{' pf' if prefetch else ''}",
                   "ms": ms, "err": err, "shared": shared, "regs": attrs.get("num_regs"),
                   "blocks": grid[0] * grid[1]}
        except Exception as exc:  # noqa: BLE001
            row = {"variant": str(v), "error": str(exc)[:300]}
        rows.append(row)
        print(row, flush=True)
    rows.append({"variant": "cuBLAS again", "ms": timed(cublas)})
    print(rows[-1])
    json.dump(rows, open(sys.argv[1], "w"), indent=1)


if __name__ == "__main__":
    main()
