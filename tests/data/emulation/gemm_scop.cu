/* Hand-written CUDA of PolyBench's gemm SCoP at MINI_DATASET (C[20][25], A[20][30],
   B[30][25]) with the contract-1 host function, for tests/test_emulate.py.  Three
   switches plant the bugs the emulation must find:
     WITH_BARRIER=0  the shared-memory tiles are read before all threads wrote them;
     COPY_IN_B=0     B is never copied to the device;
     FREE_ALL=0      the device copy of C is never freed. */
#ifdef POLYCU_EMULATE
#include "polycu_emu.h"
#else
#include <cuda_runtime.h>
#define POLYCU_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)
#define POLYCU_LAUNCH_NOSYNC POLYCU_LAUNCH
#endif
#include <stdio.h>
#include <stdlib.h>

#ifndef WITH_BARRIER
#define WITH_BARRIER 1
#endif
#ifndef COPY_IN_B
#define COPY_IN_B 1
#endif
#ifndef FREE_ALL
#define FREE_ALL 1
#endif

#define CHECK(call)                                                                     \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));       \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

#define TILE 16
#define LDA 30
#define LDB 25
#define LDC 25

__global__ void gemm_tiled(int ni, int nj, int nk, double alpha, double beta,
                           double *__restrict__ C, const double *__restrict__ A,
                           const double *__restrict__ B)
{
  __shared__ double As[TILE][TILE];
  __shared__ double Bs[TILE][TILE];
  int i = blockIdx.y * TILE + threadIdx.y, j = blockIdx.x * TILE + threadIdx.x;
  double acc = 0.0;
  for (int k0 = 0; k0 < nk; k0 += TILE) {
    int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = i < ni && ka < nk ? A[i * LDA + ka] : 0.0;
    Bs[threadIdx.y][threadIdx.x] = j < nj && kb < nk ? __ldg(&B[kb * LDB + j]) : 0.0;
#if WITH_BARRIER
    __syncthreads();
#endif
    for (int k = 0; k < TILE; k++)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
#if WITH_BARRIER
    __syncthreads();
#endif
  }
  if (i < ni && j < nj)
    C[i * LDC + j] = C[i * LDC + j] * beta + alpha * acc;
}

extern "C" void gemm_host(int ni, int nj, int nk, double *beta, double *C, double *alpha,
                          double *A, double *B)
{
  double *dC, *dA, *dB;
  CHECK(cudaMalloc(&dC, sizeof(double) * 20 * LDC));
  CHECK(cudaMalloc(&dA, sizeof(double) * 20 * LDA));
  CHECK(cudaMalloc(&dB, sizeof(double) * 30 * LDB));
  CHECK(cudaMemcpy(dC, C, sizeof(double) * 20 * LDC, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dA, A, sizeof(double) * 20 * LDA, cudaMemcpyHostToDevice));
#if COPY_IN_B
  CHECK(cudaMemcpy(dB, B, sizeof(double) * 30 * LDB, cudaMemcpyHostToDevice));
#endif
  if (ni > 0 && nj > 0) {
    POLYCU_LAUNCH(gemm_tiled, dim3((nj + TILE - 1) / TILE, (ni + TILE - 1) / TILE),
                  dim3(TILE, TILE), ni, nj, nk, *alpha, *beta, dC, dA, dB);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaMemcpy(C, dC, sizeof(double) * 20 * LDC, cudaMemcpyDeviceToHost));
#if FREE_ALL
  CHECK(cudaFree(dC));
#endif
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
}
