// How fast can a generated host function move a user's array to the GPU and back?
// (issue 14, "transfers at the limit").  For each size, both directions, the
// median of REPEAT runs of:
//   pageable     cudaMemcpy from/to the user's malloc'd array (what polycu emits today)
//   register     cudaHostRegister of the user's array, cudaMemcpy, cudaHostUnregister
//   staged       the array copied through two pinned chunks of CHUNK bytes, memcpy of
//                one chunk overlapped with the DMA of the other (buffers allocated
//                once, outside the timing: a program would keep them)
//   staged+alloc the same with cudaMallocHost/cudaFreeHost of the chunks inside
//   pinned       cudaMemcpy from/to cudaMallocHost memory (the hardware's limit)
//   staged-TxC   T host threads, each with two pinned slots of C MB and a stream of
//                its own: thread t moves chunks t, t + T, ... (memcpy into one slot
//                while the DMA of the other runs); the slots allocated once, the
//                threads started inside the timing (`threaded` runs only these)
// and, device to host into fresh memory (mmap'd, never touched: an output array the
// program has not written yet, whose first touch is the copy's), the median of
// REPEAT runs, each on a new mapping, of:
//   fresh              cudaMemcpy (the pages fault in one by one during the copy)
//   fresh-populate     madvise(MADV_POPULATE_WRITE), then cudaMemcpy
//   populate-only      the madvise alone (what can overlap with the kernels)
//   populate-N         the madvise split over N host threads, alone
//   fresh-populate-8   the 8-thread madvise, then cudaMemcpy
//   populate-touched   the madvise of resident pages (the cost when they were touched)
//   fresh-register     cudaHostRegister, cudaMemcpy, cudaHostUnregister
//   fresh-hugepage     madvise(MADV_HUGEPAGE), then cudaMemcpy
// Output: CSV lines "method,direction,bytes,ms,GB/s".
//
//   nvcc -O3 -arch=sm_90 scripts/transfer_bandwidth.cu -o /tmp/tb && /tmp/tb
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sys/mman.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t e = (call);                                                      \
    if (e != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
              cudaGetErrorString(e));                                            \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

static const int REPEAT = 7;
static const size_t CHUNK = 4u << 20;

static double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

struct Staging {
  char *buffer[2];
  cudaStream_t stream;
  cudaEvent_t done[2];
  void allocate() {
    for (int k = 0; k < 2; k++) {
      CHECK(cudaMallocHost((void **)&buffer[k], CHUNK));
      CHECK(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
    }
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  void release() {
    for (int k = 0; k < 2; k++) {
      CHECK(cudaFreeHost(buffer[k]));
      CHECK(cudaEventDestroy(done[k]));
    }
    CHECK(cudaStreamDestroy(stream));
  }
  // host -> device: fill chunk k while the DMA of chunk k-1 runs
  void to_device(char *dev, const char *host, size_t bytes) {
    int k = 0;
    for (size_t at = 0; at < bytes; at += CHUNK, k ^= 1) {
      size_t n = std::min(CHUNK, bytes - at);
      CHECK(cudaEventSynchronize(done[k]));      // the DMA that last read buffer k
      memcpy(buffer[k], host + at, n);
      CHECK(cudaMemcpyAsync(dev + at, buffer[k], n, cudaMemcpyHostToDevice, stream));
      CHECK(cudaEventRecord(done[k], stream));
    }
    CHECK(cudaStreamSynchronize(stream));
  }
  // device -> host: the DMA of chunk k+1 runs while chunk k is copied out
  void to_host(char *host, const char *dev, size_t bytes) {
    size_t count = (bytes + CHUNK - 1) / CHUNK;
    auto issue = [&](size_t c) {
      size_t at = c * CHUNK, n = std::min(CHUNK, bytes - at);
      CHECK(cudaMemcpyAsync(buffer[c & 1], dev + at, n, cudaMemcpyDeviceToHost, stream));
      CHECK(cudaEventRecord(done[c & 1], stream));
    };
    if (count) issue(0);
    for (size_t c = 0; c < count; c++) {
      if (c + 1 < count) issue(c + 1);
      CHECK(cudaEventSynchronize(done[c & 1]));
      size_t at = c * CHUNK, n = std::min(CHUNK, bytes - at);
      memcpy(host + at, buffer[c & 1], n);
    }
  }
};

// T workers with two pinned slots of `chunk` bytes each (session 30).
struct ThreadedStaging {
  int workers;
  size_t chunk;
  std::vector<Staging> lanes;
  ThreadedStaging(int t, size_t c) : workers(t), chunk(c), lanes(t) {
    for (Staging &l : lanes) {
      for (int k = 0; k < 2; k++) {
        CHECK(cudaMallocHost((void **)&l.buffer[k], chunk));
        CHECK(cudaEventCreateWithFlags(&l.done[k], cudaEventDisableTiming));
      }
      CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
    }
  }
  ~ThreadedStaging() {
    for (Staging &l : lanes) l.release();
  }
  void to_device(char *dev, const char *host, size_t bytes) {
    const size_t count = (bytes + chunk - 1) / chunk;
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; w++)
      threads.emplace_back([=] {
        Staging &l = lanes[w];
        int k = 0;
        for (size_t c = w; c < count; c += workers, k ^= 1) {
          size_t at = c * chunk, n = std::min(chunk, bytes - at);
          CHECK(cudaEventSynchronize(l.done[k]));
          memcpy(l.buffer[k], host + at, n);
          CHECK(cudaMemcpyAsync(dev + at, l.buffer[k], n, cudaMemcpyHostToDevice, l.stream));
          CHECK(cudaEventRecord(l.done[k], l.stream));
        }
        CHECK(cudaStreamSynchronize(l.stream));
      });
    for (std::thread &t : threads) t.join();
  }
  void to_host(char *host, const char *dev, size_t bytes) {
    const size_t count = (bytes + chunk - 1) / chunk;
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; w++)
      threads.emplace_back([=] {
        Staging &l = lanes[w];
        auto issue = [&](size_t c, int k) {
          size_t at = c * chunk, n = std::min(chunk, bytes - at);
          CHECK(cudaMemcpyAsync(l.buffer[k], dev + at, n, cudaMemcpyDeviceToHost, l.stream));
          CHECK(cudaEventRecord(l.done[k], l.stream));
        };
        int k = 0;
        if ((size_t)w < count) issue(w, 0);
        for (size_t c = w; c < count; c += workers, k ^= 1) {
          if (c + workers < count) issue(c + workers, k ^ 1);
          CHECK(cudaEventSynchronize(l.done[k]));
          size_t at = c * chunk, n = std::min(chunk, bytes - at);
          memcpy(host + at, l.buffer[k], n);
        }
      });
    for (std::thread &t : threads) t.join();
  }
};

template <class F> static double median_ms(F run) {
  std::vector<double> t;
  for (int r = 0; r < REPEAT; r++) {
    CHECK(cudaDeviceSynchronize());
    double start = now_ms();
    run();
    CHECK(cudaDeviceSynchronize());
    t.push_back(now_ms() - start);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The median over REPEAT fresh mappings of the time of run(host) alone.
template <class F> static double fresh_ms(size_t bytes, F run) {
  std::vector<double> t;
  for (int r = 0; r < REPEAT; r++) {
    char *host = (char *)mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (host == MAP_FAILED) {
      perror("mmap");
      exit(1);
    }
    CHECK(cudaDeviceSynchronize());
    double start = now_ms();
    run(host);
    CHECK(cudaDeviceSynchronize());
    t.push_back(now_ms() - start);
    munmap(host, bytes);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static void advise(char *host, size_t bytes, int advice) {
  if (madvise(host, bytes, advice) != 0) {
    perror("madvise");
    exit(1);
  }
}

// MADV_POPULATE_WRITE on [host, host + bytes) split into `threads` page-aligned slices.
static void populate(char *host, size_t bytes, int threads) {
  const size_t page = 4096, slice = (bytes / threads + page - 1) / page * page;
  std::vector<std::thread> workers;
  for (size_t at = 0; at < bytes; at += slice)
    workers.emplace_back([=] { advise(host + at, std::min(slice, bytes - at), MADV_POPULATE_WRITE); });
  for (std::thread &w : workers) w.join();
}

static void report(const char *method, const char *direction, size_t bytes, double ms) {
  printf("%s,%s,%zu,%.4f,%.2f\n", method, direction, bytes, ms, bytes / ms / 1e6);
}

// The driver's own ways: pageable cudaMemcpy, and the array registered for the copy.
static void driver_copies(char *host, char *dev, size_t bytes) {
    report("pageable", "h2d", bytes, median_ms([&] {
      CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice)); }));
    report("pageable", "d2h", bytes, median_ms([&] {
      CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost)); }));
    report("register", "h2d", bytes, median_ms([&] {
      CHECK(cudaHostRegister(host, bytes, cudaHostRegisterDefault));
      CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
      CHECK(cudaHostUnregister(host)); }));
    report("register", "d2h", bytes, median_ms([&] {
      CHECK(cudaHostRegister(host, bytes, cudaHostRegisterDefault));
      CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
      CHECK(cudaHostUnregister(host)); }));
}

static int threaded(const size_t *sizes, size_t nsizes) {
  for (size_t s = 0; s < nsizes; s++) {
    const size_t bytes = sizes[s];
    char *host = (char *)malloc(bytes), *dev;
    for (size_t i = 0; i < bytes; i++) host[i] = (char)(i * 7);
    CHECK(cudaMalloc((void **)&dev, bytes));
    driver_copies(host, dev, bytes);
    for (int t : {1, 2, 4, 8, 16})
      for (size_t mb : {1, 2, 4}) {
        ThreadedStaging staging(t, mb << 20);
        const std::string name = "staged-" + std::to_string(t) + "x" + std::to_string(mb);
        report(name.c_str(), "h2d", bytes, median_ms([&] { staging.to_device(dev, host, bytes); }));
        report(name.c_str(), "d2h", bytes, median_ms([&] { staging.to_host(host, dev, bytes); }));
        std::vector<char> back(bytes);
        staging.to_device(dev, host, bytes);
        staging.to_host(back.data(), dev, bytes);
        if (memcmp(back.data(), host, bytes) != 0) {
          fprintf(stderr, "%s copy of %zu bytes differs\n", name.c_str(), bytes);
          return 1;
        }
      }
    CHECK(cudaFree(dev));
    free(host);
  }
  return 0;
}

int main(int argc, char **argv) {
  CHECK(cudaFree(0));
  if (argc > 1 && strcmp(argv[1], "threaded") == 0) {
    printf("method,direction,bytes,ms,GBps\n");
    const size_t sizes[] = {2u << 20, 8u << 20, 27u << 20, 32u << 20, 128u << 20};
    return threaded(sizes, sizeof sizes / sizeof *sizes);
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  fprintf(stderr, "device: %s\n", prop.name);
  printf("method,direction,bytes,ms,GBps\n");
  const size_t sizes[] = {1u << 20, 8u << 20, 32u << 20, 128u << 20};
  for (size_t bytes : sizes) {
    char *host = (char *)malloc(bytes);
    for (size_t i = 0; i < bytes; i++) host[i] = (char)(i * 7);   // touched: resident pages
    char *pinned, *dev;
    CHECK(cudaMallocHost((void **)&pinned, bytes));
    memset(pinned, 1, bytes);
    CHECK(cudaMalloc((void **)&dev, bytes));
    Staging staging;
    staging.allocate();

    driver_copies(host, dev, bytes);
    report("staged", "h2d", bytes, median_ms([&] { staging.to_device(dev, host, bytes); }));
    report("staged", "d2h", bytes, median_ms([&] { staging.to_host(host, dev, bytes); }));
    staging.release();
    report("staged+alloc", "h2d", bytes, median_ms([&] {
      Staging s;
      s.allocate();
      s.to_device(dev, host, bytes);
      s.release(); }));
    report("pinned", "h2d", bytes, median_ms([&] {
      CHECK(cudaMemcpy(dev, pinned, bytes, cudaMemcpyHostToDevice)); }));
    report("pinned", "d2h", bytes, median_ms([&] {
      CHECK(cudaMemcpy(pinned, dev, bytes, cudaMemcpyDeviceToHost)); }));
    report("fresh", "d2h", bytes, fresh_ms(bytes, [&](char *h) {
      CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost)); }));
    report("fresh-populate", "d2h", bytes, fresh_ms(bytes, [&](char *h) {
      advise(h, bytes, MADV_POPULATE_WRITE);
      CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost)); }));
    report("populate-only", "d2h", bytes, fresh_ms(bytes, [&](char *h) {
      advise(h, bytes, MADV_POPULATE_WRITE); }));
    for (int threads : {2, 4, 8, 16})
      report(("populate-" + std::to_string(threads)).c_str(), "d2h", bytes,
             fresh_ms(bytes, [&](char *h) { populate(h, bytes, threads); }));
    report("fresh-populate-8", "d2h", bytes, fresh_ms(bytes, [&](char *h) {
      populate(h, bytes, 8);
      CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost)); }));
    report("populate-touched", "d2h", bytes, median_ms([&] {
      char *aligned = (char *)(((uintptr_t)host + 4095) & ~(uintptr_t)4095);
      advise(aligned, (bytes - 4096) / 4096 * 4096, MADV_POPULATE_WRITE); }));
    report("fresh-register", "d2h", bytes, fresh_ms(bytes, [&](char *h) {
      CHECK(cudaHostRegister(h, bytes, cudaHostRegisterDefault));
      CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost));
      CHECK(cudaHostUnregister(h)); }));
    report("fresh-hugepage", "d2h", bytes, fresh_ms(bytes, [&](char *h) {
      advise(h, bytes, MADV_HUGEPAGE);
      CHECK(cudaMemcpy(h, dev, bytes, cudaMemcpyDeviceToHost)); }));

    // the staged copy must be exact
    std::vector<char> back(bytes);
    staging.allocate();
    staging.to_device(dev, host, bytes);
    staging.to_host(back.data(), dev, bytes);
    staging.release();
    if (memcmp(back.data(), host, bytes) != 0) {
      fprintf(stderr, "staged copy of %zu bytes differs\n", bytes);
      return 1;
    }
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(pinned));
    free(host);
  }
  return 0;
}
