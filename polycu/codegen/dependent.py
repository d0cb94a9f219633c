"""Dependent launches (``--dependent-launches``): the C the generated program needs.

A kernel launched with CUDA's programmatic stream serialization may be set up while
the launch before it in its stream still runs (Hopper's programmatic dependent
launch), which hides part of a launch's latency: 0.14-0.23 us of the 0.84-1.13 us a
small dependent launch costs in a CUDA graph (``scripts/dependent_launch_probe.cu``,
H200).  Its kernel's first statement, ``POLYCU_AFTER_PREVIOUS()``
(``codegen/kernel.py``), waits until the launch before it has finished and its
writes are visible (``griddepcontrol.wait``).  Nothing reads device memory before
that wait, so each kernel computes what it computes when launched after the one
before it ended, and the emulation runs the launches in turn (``polycu_emu.h``
checks that every thread waited).  Copies between launches keep their stream order:
only a kernel's wait for the kernel before it is relaxed.  The PyCUDA runtime
launches the same way (``runtime/dependent.py``).

A kernel does not let the next launch start early (``launch_dependents``): the next
one's blocks then wait on the SMs while it runs and are placed where there is room,
not spread as on an idle GPU.  Measured on the 30 PolyBench kernels (H200, LARGE):
letting it start after the wait, floyd-warshall, fdtd-2d and jacobi-2d gained 9-11%
but deriche ran 0.55x, heat-3d 0.88x and adi 0.96x; only from grids with more
blocks than the GPU holds, deriche 0.54x, floyd-warshall 0.89x, lu 0.92x; with the
wait alone none is slower and floyd-warshall gains 7%, lu 6%, cholesky 5.5%
(``docs/results/dependent_launches.md``).
"""

#: The macros of the generated .cu for a GPU build (the emulation's are in
#: ``polycu_emu.h``): the wait, and the launches with and without a stream.
MACROS = r"""/* A dependent launch (--dependent-launches, Hopper's programmatic dependent launch):
   it may be set up while the launch before it in its stream still runs, and its
   kernel begins with POLYCU_AFTER_PREVIOUS(), which waits until the one before has
   finished and its writes are visible. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define POLYCU_AFTER_PREVIOUS() \
  asm volatile("griddepcontrol.wait;" ::: "memory")
#else
#define POLYCU_AFTER_PREVIOUS() ((void)0)
#endif
/* A launch of `kernel`, its arguments converted to the parameters' types as in a
   <<<>>> launch (none is a launch too: the array keeps one pointer). */
template <typename... Params>
struct polycu_after {
  void (*kernel)(Params...);
  dim3 grid, block;
  cudaStream_t stream;
  void operator()(Params... values) const
  {
    void *pointers[sizeof...(Params) + 1] = {&values..., nullptr};
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.stream = stream;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    /* POLYCU_CHECK_LAUNCH reads its status */
    (void)cudaLaunchKernelExC(&config, (const void *)kernel, pointers);
  }
};
template <typename... Params>
static polycu_after<Params...> polycu_launch_after(void (*kernel)(Params...), dim3 grid,
                                                   dim3 block, cudaStream_t stream)
{
  return polycu_after<Params...>{kernel, grid, block, stream};
}
#define POLYCU_LAUNCH_AFTER(kernel, grid, block, ...) \
  polycu_launch_after(kernel, (grid), (block), 0)(__VA_ARGS__)
#define POLYCU_LAUNCH_NOSYNC_AFTER POLYCU_LAUNCH_AFTER
#define POLYCU_LAUNCH_AFTER_ON(stream, kernel, grid, block, ...) \
  polycu_launch_after(kernel, (grid), (block), (stream))(__VA_ARGS__)
#define POLYCU_LAUNCH_NOSYNC_AFTER_ON POLYCU_LAUNCH_AFTER_ON
"""
