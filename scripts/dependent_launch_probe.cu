// Dependent launches probe (issue 14: launch-bound host loops).  What does a launch
// that depends on the one before it cost in a CUDA graph, and how much of it does
// Hopper's programmatic dependent launch (PDL) take away?
//     here:   nvcc -O3 -arch=sm_90 --fmad=false -o dlp scripts/dependent_launch_probe.cu
//     device: ./dlp [LAUNCHES]      (default 6000, cholesky's and lu's count at LARGE)
// Each variant runs the same chain; its result is compared bit for bit with PLAIN's.
//   PLAIN   <<<>>> launches in a stream, and that stream captured into a graph;
//   WAIT    cudaLaunchKernelEx with programmaticStreamSerializationAllowed: the
//           kernel's first instruction is griddepcontrol.wait (it waits for the
//           launch before it to finish and its writes to be visible), so a launch
//           may be scheduled while the one before it still runs;
//   EARLY   as WAIT, and each kernel first lets the next one launch
//           (griddepcontrol.launch_dependents), then waits.
// Chains: a tiny ping-pong kernel on G blocks of 256 threads (G = 1 .. 1056), and
// jacobi-2d's two kernels as polycu generates them (1300 x 1300, 32 x 8 threads).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

enum Mode { PLAIN = 0, WAIT = 1, EARLY = 2 };
static const char *mode_name[] = {"PLAIN", "WAIT", "EARLY"};

template <int M> __device__ inline void prologue() {
  if (M == EARLY) asm volatile("griddepcontrol.launch_dependents;");
  if (M != PLAIN) asm volatile("griddepcontrol.wait;" ::: "memory");
}

// b[i] = a[i] / 2 + a[i + 1] / 4 (cyclic): every launch reads its neighbours' last values.
template <int M> __global__ void tiny_k(int n, const double *__restrict__ a, double *__restrict__ b) {
  prologue<M>();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 0.5 * a[i] + 0.25 * a[i + 1 == n ? 0 : i + 1];
}

// jacobi-2d's sweep as polycu prints it (tiles of 32 x 32, threads 32 x 8).
template <int M> __global__ void sweep_k(int n, const double *__restrict__ A, double *__restrict__ B) {
  prologue<M>();
  const int t0 = threadIdx.y, j = 32 * blockIdx.x + threadIdx.x;
  if (n >= j + 2 && j >= 1)
    for (int i = max(32 * (int)blockIdx.y + t0, (t0 + 7) % 8 + 1);
         i <= min(n - 2, 32 * (int)blockIdx.y + 31); i += 8)
      B[i * n + j] = 0.2 * ((((A[i * n + j] + A[i * n + j - 1]) + A[i * n + j + 1])
                             + A[(i + 1) * n + j]) + A[(i - 1) * n + j]);
}

template <class K>
static void launch(int mode, K kernel, dim3 grid, dim3 block, cudaStream_t st, int n,
                   const double *a, double *b) {
  if (mode == PLAIN) {
    kernel<<<grid, block, 0, st>>>(n, a, b);
    return;
  }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.stream = st;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, kernel, n, a, b));
}

struct Chain {
  const char *name;
  dim3 grid, block;
  int n;            // elements of each buffer
  int arg;          // the kernel's n
  bool jacobi;
};

static void run(int mode, const Chain &c, int launches, cudaStream_t st, double *a, double *b) {
  for (int l = 0; l < launches; l++) {
    const double *src = (l & 1) ? b : a;
    double *dst = (l & 1) ? a : b;
    if (c.jacobi) {
      if (mode == PLAIN) launch(mode, sweep_k<PLAIN>, c.grid, c.block, st, c.arg, src, dst);
      else if (mode == WAIT) launch(mode, sweep_k<WAIT>, c.grid, c.block, st, c.arg, src, dst);
      else launch(mode, sweep_k<EARLY>, c.grid, c.block, st, c.arg, src, dst);
    } else {
      if (mode == PLAIN) launch(mode, tiny_k<PLAIN>, c.grid, c.block, st, c.arg, src, dst);
      else if (mode == WAIT) launch(mode, tiny_k<WAIT>, c.grid, c.block, st, c.arg, src, dst);
      else launch(mode, tiny_k<EARLY>, c.grid, c.block, st, c.arg, src, dst);
    }
  }
}

int main(int argc, char **argv) {
  const int launches = argc > 1 ? atoi(argv[1]) : 6000;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs; %d dependent launches a chain\n", prop.name,
         prop.multiProcessorCount, launches);
  std::vector<Chain> chains;
  for (int g : {1, 16, 132, 1056})
    chains.push_back({"tiny", dim3(g), dim3(256), g * 256, g * 256, false});
  const int n = 1300;
  chains.push_back({"jacobi2d", dim3((n + 31) / 32, (n + 31) / 32), dim3(32, 8), n * n, n, true});
  cudaStream_t st;
  CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  const int reps = 5;
  printf("%-9s %5s %-6s %10s %10s %12s  %s\n", "chain", "grid", "mode", "stream ms",
         "graph ms", "graph us/l", "result");
  for (const Chain &c : chains) {
    const size_t bytes = (size_t)c.n * sizeof(double);
    std::vector<double> init(c.n), ref(c.n), out(c.n);
    for (int i = 0; i < c.n; i++) init[i] = (double)((i * 37) % 101) / 7.0 - 3.0;
    double *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    auto reset = [&]() {
      CHECK(cudaMemcpy(a, init.data(), bytes, cudaMemcpyHostToDevice));
      CHECK(cudaMemcpy(b, init.data(), bytes, cudaMemcpyHostToDevice));
      CHECK(cudaDeviceSynchronize());
    };
    auto timed = [&](auto body) {
      float best = 1e30f;
      for (int r = 0; r < reps; r++) {
        reset();
        CHECK(cudaEventRecord(e0, st));
        body();
        CHECK(cudaEventRecord(e1, st));
        CHECK(cudaEventSynchronize(e1));
        float t;
        CHECK(cudaEventElapsedTime(&t, e0, e1));
        if (t < best) best = t;
      }
      return best;
    };
    for (int mode = PLAIN; mode <= EARLY; mode++) {
      const float stream_ms = timed([&]() { run(mode, c, launches, st, a, b); });
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
      run(mode, c, launches, st, a, b);
      CHECK(cudaStreamEndCapture(st, &graph));
      CHECK(cudaGraphInstantiate(&exec, graph, 0));
      CHECK(cudaGraphLaunch(exec, st));  // uploads the graph
      CHECK(cudaStreamSynchronize(st));
      const float graph_ms = timed([&]() { CHECK(cudaGraphLaunch(exec, st)); });
      CHECK(cudaMemcpy(out.data(), (launches & 1) ? b : a, bytes, cudaMemcpyDeviceToHost));
      if (mode == PLAIN) ref = out;
      const bool same = !memcmp(out.data(), ref.data(), bytes);
      printf("%-9s %5u %-6s %10.3f %10.3f %12.3f  %s\n", c.name, c.grid.x * c.grid.y,
             mode_name[mode], stream_ms, graph_ms, 1000.0 * graph_ms / launches,
             same ? "equal to PLAIN" : "DIFFERS from PLAIN");
      CHECK(cudaGraphExecDestroy(exec));
      CHECK(cudaGraphDestroy(graph));
    }
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }
  return 0;
}
