"""The CUDA text of the FP64 tensor-core instructions and copies, and the register
bound of a tensor-core kernel (``codegen/tensor.py`` prints the kernel itself).

The mma and cp.async inline assembly exists from sm_80 on, mma.m16n8k8.f64 from
sm_90; the same macros print plain C before sm_80 and in the CPU emulation, so one
kernel text serves every target.  Much of the sm_90 path's speed comes from the
register bound (docs/results/memory.md, run s18): three of gemm's blocks share an SM
only when a thread takes at most 96 registers.
"""
from __future__ import annotations

from ..memory.contraction import Contraction

TENSOR_HELPERS = r"""/* FP64 tensor cores (codegen/tensor.py): mma.m8n8k4.f64 and
   cp.async from sm_80 on, mma.m16n8k8.f64 from sm_90; before sm_80 and in the CPU
   emulation, plain copies and each thread's own products. */
/* from sm_80 on, at least `blocks` blocks an SM; the plain path before it keeps its
   registers */
#if defined(POLYCU_EMULATE) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800)
#define POLYCU_BOUNDS(threads, blocks) __launch_bounds__(threads)
#else
#define POLYCU_BOUNDS(threads, blocks) __launch_bounds__(threads, blocks)
#endif
#if !defined(POLYCU_EMULATE) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define POLYCU_MMA 1
__device__ __forceinline__ void polycu_mma(double &d0, double &d1, double a, double b)
{
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
}
#if __CUDA_ARCH__ >= 900
/* sm_90's mma.m16n8k8.f64: lane 4 g + t holds A[g + 8 (r % 2)][t + 4 (r / 2)] in a_r,
   B[t + 4 r][g] in b_r and D[g + 8 (r / 2)][2 t + r % 2] in d_r, so d_0, d_1 and d_2,
   d_3 are two m8n8k4 accumulators, of rows g and g + 8. */
#define POLYCU_MMA16 1
__device__ __forceinline__ void polycu_mma16(double &d0, double &d1, double &d2, double &d3,
    double a0, double a1, double a2, double a3, double b0, double b1)
{
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3)
               : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
}
#else
#define POLYCU_MMA16 0
#endif
#define POLYCU_CP8(tile, index, source, ok) \
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: \
               "r"((unsigned)__cvta_generic_to_shared(&(tile)[index])), "l"(source), \
               "r"((ok) ? 8 : 0))
/* source[0] and source[1] into tile[index] and tile[index + 1] (zeros where not ok0,
   ok1): one 16-byte copy when both are read and source is 16-byte aligned; every
   address given to a copy is that of an element read or, when none is, source. */
#define POLYCU_CP16(tile, index, source, ok0, ok1) do { \
    const double *polycu_p_ = (source); \
    if ((ok0) && (ok1) && ((size_t)polycu_p_ & 15) == 0) \
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: \
                   "r"((unsigned)__cvta_generic_to_shared(&(tile)[index])), "l"(polycu_p_)); \
    else { \
      POLYCU_CP8(tile, index, ((ok0) || !(ok1)) ? polycu_p_ : polycu_p_ + 1, ok0); \
      POLYCU_CP8(tile, (index) + 1, (ok1) ? polycu_p_ + 1 : polycu_p_, ok1); \
    } \
  } while (0)
#define POLYCU_CP_COMMIT() asm volatile("cp.async.commit_group;")
#define POLYCU_CP_WAIT(n) asm volatile("cp.async.wait_group %0;" :: "n"(n))
#define POLYCU_SHARED16(T, name, n) __shared__ __align__(16) T name[n]
#else
/* before sm_80 and in the CPU emulation: plain copies */
#define POLYCU_CP16(tile, index, source, ok0, ok1) \
  ((tile)[index] = (ok0) ? (source)[0] : 0.0, (tile)[(index) + 1] = (ok1) ? (source)[1] : 0.0)
#define POLYCU_CP_COMMIT()
#define POLYCU_CP_WAIT(n)
#define POLYCU_SHARED16(T, name, n) POLYCU_SHARED(T, name, n)
#if defined(POLYCU_EMULATE) && defined(POLYCU_EMULATE_MMA)
/* the CPU emulation of the mma path (POLYCU_EMULATE_MMA 4: m8n8k4, 8: m16n8k8 where
   the rows pair up): the warp's lanes exchange their fragments (polycu_emu.h) */
#define POLYCU_MMA 1
#define POLYCU_MMA16 (POLYCU_EMULATE_MMA == 8)
inline void polycu_mma(double &d0, double &d1, double a, double b)
{
  polycu_emu::mma_m8n8k4(d0, d1, a, b);
}
inline void polycu_mma16(double &d0, double &d1, double &d2, double &d3,
    double a0, double a1, double a2, double a3, double b0, double b1)
{
  polycu_emu::mma_m16n8k8(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1);
}
#else
#define POLYCU_MMA 0
#define POLYCU_MMA16 0
#endif
#endif"""

#: The k of one sm_90 mma step (m16n8k8): m16n8k16 was no faster in the prototype
#: (``scripts/tensor_core_fragments.py``) and takes twice the fragment registers.
WIDE_STEP = 8

#: An SM's four sub-partitions each hold the registers of the warps it runs (16384,
#: in whole units of 256 a warp), and the SM's blocks share its shared memory (each
#: also takes 1 KB the system reserves): sm_80 and sm_90.
PARTITION_REGISTERS = 16384
SM_SHARED = 228 * 1024
#: The fewest registers a thread of the tensor-core kernel runs on without spilling.
MIN_REGISTERS = 96


def thread_registers(blocks: int, warps: int) -> int:
    """The registers a thread may have when ``blocks`` blocks of ``warps`` warps share
    an SM: the busiest sub-partition runs ceil(blocks warps / 4) warps."""
    per_warp = PARTITION_REGISTERS // -(-blocks * warps // 4) // 256 * 256
    return min(255, per_warp // 32 // 8 * 8)


def launch_bounds(found: Contraction) -> str:
    """The kernel's ``__launch_bounds__``: its threads, and the most blocks an SM
    whose threads still get their accumulators, one step's fragments (two registers
    a double) and some 24 for addresses, as far as shared memory admits.  Uncapped,
    the sm_90 path of gemm's 48 x 64 block took 107 registers, two blocks an SM; with
    three (96 registers) gemm ran 1.27x faster on an H200 (docs/results/memory.md,
    run s18)."""
    warps = found.warps[0] * found.warps[1]
    mt, nt = (found.rows.tile // found.warps[0]) // 8, (found.cols.tile // found.warps[1]) // 8
    need = max(MIN_REGISTERS, 2 * (2 * mt * nt + (mt + nt) * WIDE_STEP // 4) + 24)
    shared = 8 * found.stages * found.buffer()
    blocks = max([b for b in range(1, SM_SHARED // (shared + 1024) + 1)
                  if thread_registers(b, warps) >= need], default=1)
    return f"POLYCU_BOUNDS({32 * warps}, {blocks})" if blocks > 1 else \
        f"__launch_bounds__({32 * warps})"
