"""Overlapped time tiling of jacobi-2d by hand, against polycu's two kernels a step.

Usage (on the device, CuPy only): python3 scripts/time_tiling_prototype.py [N] [STEPS]
(default 1300 500, PolyBench LARGE); writes $OUT/tt.json (ms per configuration).

Issue 14 asks jacobi-2d's kernel time 3x lower; its sweeps sit near L2 bandwidth, so
the question is what time tiling can buy before polycu generates it.  ``BASE`` is
polycu's kernel pair of a step (LARGE, 32x32 tiles, 32x8 threads), launched from
Python once a sweep.  ``TT`` runs T steps a launch: a block loads its tile of A and
B with a halo of 2T (two sweeps of reach 1 a step) into shared memory, recomputes
the shrinking halo each sweep between barriers, and writes its tile to the other
of two device buffers (ping-pong: a neighbour still reads the old halo).  SLIDE=1
walks each column with the rows above and below in registers (3 shared reads a
point instead of 5).  Every configuration is compared bit for bit with BASE's
result (the same additions in the same order).  Results: docs/results/time_tiling.md.
"""
import sys, time, json
import numpy as np, cupy as cp

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1300
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 500

BASE = r'''
extern "C" __global__ void k0(int n, const double *__restrict__ A, double *__restrict__ B)
{
  const int b0 = blockIdx.y, t0 = threadIdx.y;
  const int b1 = blockIdx.x, t1 = threadIdx.x;
  if (n >= 32 * b1 + t1 + 2 && 32 * b1 + t1 >= 1) {
    for (int c1 = max(32 * b0 + t0, (t0 + 7) % 8 + 1); c1 <= min(n - 2, 32 * b0 + 31); c1 += 8) {
      B[c1 * n + (32 * b1 + t1)] = 0.2 * ((((A[c1 * n + (32 * b1 + t1)] + A[c1 * n + (32 * b1 + t1) - 1]) + A[c1 * n + 1 + (32 * b1 + t1)]) + A[(1 + c1) * n + (32 * b1 + t1)]) + A[(c1 - 1) * n + (32 * b1 + t1)]);
    }
  }
}
extern "C" __global__ void k1(int n, double *__restrict__ A, const double *__restrict__ B)
{
  const int b0 = blockIdx.y, t0 = threadIdx.y;
  const int b1 = blockIdx.x, t1 = threadIdx.x;
  if (n >= 32 * b1 + t1 + 2 && 32 * b1 + t1 >= 1) {
    for (int c1 = max(32 * b0 + t0, (t0 + 7) % 8 + 1); c1 <= min(n - 2, 32 * b0 + 31); c1 += 8) {
      A[c1 * n + (32 * b1 + t1)] = 0.2 * ((((B[c1 * n + (32 * b1 + t1)] + B[c1 * n + (32 * b1 + t1) - 1]) + B[c1 * n + 1 + (32 * b1 + t1)]) + B[(1 + c1) * n + (32 * b1 + t1)]) + B[(c1 - 1) * n + (32 * b1 + t1)]);
    }
  }
}
'''

# Overlapped tiling: core TX x TY, halo H = 2*TMAX (two sweeps of reach 1 per step).
TT = r'''
#define W (TX + 2 * H)
#define HH (TY + 2 * H)
extern "C" __global__ void __launch_bounds__(BX * BY) tt(int n, int steps, const double *__restrict__ Ain, const double *__restrict__ Bin, double *__restrict__ Aout, double *__restrict__ Bout)
{
  extern __shared__ double sm[];
  double *sA = sm, *sB = sm + W * HH;
  const int j0 = blockIdx.x * TX - H, i0 = blockIdx.y * TY - H;
  const int tid = threadIdx.y * BX + threadIdx.x;
  for (int idx = tid; idx < W * HH; idx += BX * BY) {
    int li = idx / W, lj = idx - li * W, i = i0 + li, j = j0 + lj;
    if (i >= 0 && i < n && j >= 0 && j < n) { sA[idx] = Ain[i * n + j]; sB[idx] = Bin[i * n + j]; }
  }
  __syncthreads();
  for (int s = 0; s < 2 * steps; s++) {
    const int h = H - (2 * steps - 1 - s);      /* local offset of the region */
    const double *src = (s & 1) ? sB : sA;
    double *dst = (s & 1) ? sA : sB;
    const int ilo = max(h, 1 - i0), ihi = min(HH - h, n - 1 - i0);
    const int jlo = max(h, 1 - j0), jhi = min(W - h, n - 1 - j0);
#if SLIDE
    for (int lj = jlo + threadIdx.x; lj < jhi; lj += BX) {
      const int rows = ihi - ilo, per = (rows + BY - 1) / BY;
      const int a = ilo + threadIdx.y * per, b = min(ihi, a + per);
      if (a < b) {
        double up = src[(a - 1) * W + lj], cur = src[a * W + lj];
        for (int li = a; li < b; li++) {
          double down = src[(li + 1) * W + lj];
          dst[li * W + lj] = 0.2 * ((((cur + src[li * W + lj - 1]) + src[li * W + lj + 1]) + down) + up);
          up = cur; cur = down;
        }
      }
    }
#else
    for (int li = ilo + threadIdx.y; li < ihi; li += BY)
      for (int lj = jlo + threadIdx.x; lj < jhi; lj += BX)
        dst[li * W + lj] = 0.2 * ((((src[li * W + lj] + src[li * W + lj - 1]) + src[li * W + lj + 1]) + src[(li + 1) * W + lj]) + src[(li - 1) * W + lj]);
#endif
    __syncthreads();
  }
  for (int li = H + threadIdx.y; li < H + TY; li += BY)
    for (int lj = H + threadIdx.x; lj < H + TX; lj += BX) {
      int i = i0 + li, j = j0 + lj;
      if (i < n && j < n) { Aout[i * n + j] = sA[li * W + lj]; Bout[i * n + j] = sB[li * W + lj]; }
    }
}
'''

def events_time(fn, reps=5):
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts)), ts

rng = np.random.default_rng(1)
A0 = cp.asarray(rng.standard_normal((N, N)))
B0 = cp.asarray(rng.standard_normal((N, N)))
base = cp.RawModule(code=BASE, options=("-arch=sm_90",))
k0, k1 = base.get_function("k0"), base.get_function("k1")
A = A0.copy(); B = B0.copy()
grid = ((N + 31) // 32, (N + 31) // 32); blk = (32, 8)
def run_base():
    for t in range(STEPS):
        k0(grid, blk, (np.int32(N), A, B)); k1(grid, blk, (np.int32(N), A, B))
run_base(); cp.cuda.Device().synchronize()
refA, refB = A.copy(), B.copy()
def run_base_fresh():
    A[...] = A0; B[...] = B0; run_base()
tb, _ = events_time(run_base_fresh)
print(f"base: {tb:.3f} ms", flush=True)
results = {"base": tb}
configs = []
for (TX, TY) in [(32, 32), (64, 32), (64, 64), (128, 32), (128, 64)]:
    for T in [1, 2, 3, 4, 6, 8]:
        for (BX, BY) in [(32, 8), (32, 16), (64, 8)]:
            for SLIDE in [0, 1]:
                configs.append((TX, TY, T, BX, BY, SLIDE))
for (TX, TY, T, BX, BY, SLIDE) in configs:
    H = 2 * T
    smem = 2 * (TX + 2 * H) * (TY + 2 * H) * 8
    if smem > 227 * 1024:
        continue
    try:
        mod = cp.RawModule(code=TT, options=("-arch=sm_90", f"-DTX={TX}", f"-DTY={TY}", f"-DH={H}", f"-DBX={BX}", f"-DBY={BY}", f"-DSLIDE={SLIDE}"))
        f = mod.get_function("tt")
        f.max_dynamic_shared_size_bytes = smem
    except Exception as ex:
        print("compile fail", TX, TY, T, BX, BY, SLIDE, ex); continue
    Ab = [A0.copy(), cp.empty_like(A0)]; Bb = [B0.copy(), cp.empty_like(B0)]
    g = ((N + TX - 1) // TX, (N + TY - 1) // TY)
    def run():
        Ab[0][...] = A0; Bb[0][...] = B0
        cur = 0; done = 0
        while done < STEPS:
            st = min(T, STEPS - done)
            f(g, (BX, BY), (np.int32(N), np.int32(st), Ab[cur], Bb[cur], Ab[1 - cur], Bb[1 - cur]), shared_mem=smem)
            cur = 1 - cur; done += st
        return cur
    cur = run(); cp.cuda.Device().synchronize()
    ok = bool(cp.array_equal(Ab[cur], refA) and cp.array_equal(Bb[cur], refB))
    t, _ = events_time(run)
    key = f"tile{TX}x{TY} T{T} blk{BX}x{BY} slide{SLIDE}"
    results[key] = t
    print(f"{key}: {t:.3f} ms  ({tb / t:.2f}x) ok={ok} smem={smem}", flush=True)
import os
json.dump(results, open(os.path.join(os.environ.get("OUT", "."), "tt.json"), "w"), indent=1)
