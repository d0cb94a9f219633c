extern "C" __global__ void __launch_bounds__(288) kernel_atax_scop0_kernel0(int n, int m, double *__restrict__ tmp, const double *__restrict__ A, const double *__restrict__ x)
{
  POLYCU_SHARED(int, terms0, 8);
  const bool adder = threadIdx.y == 8;
  const int slice = threadIdx.x, row = (adder ? threadIdx.x : threadIdx.y);
  const bool owner = adder && row < 8;
  const int i_ = (0) + 8 * (int)blockIdx.x + row;
  if (owner) {
    if ((i_ >= 0) && (-1 * i_ + m - 1 >= 0))
      tmp[i_] = 0.0;
  }
  POLYCU_SHARED(double, sum0, 2064);
  const int klo0 = -(0), khi0 = (n - 1);
  double p0 = (double)-0.0;
  if (owner) {
    terms0[row] = ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && klo0 <= khi0) ? khi0 - klo0 + 1 : 0;
    if ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && klo0 <= khi0)
      p0 = tmp[i_];
  }
  __syncthreads();
  int n_0 = 0;
  for (int q = 0; q < 8; q++)
    n_0 = terms0[q] > n_0 ? terms0[q] : n_0;
  double ld0_0[4];
  double ld0_1[4];
  if (!adder && 0 < n_0) {
    #pragma unroll
    for (int u = 0; u < 4; u++) {
      const int k = klo0 + 0 + slice + u * 32;
      ld0_0[u] = ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && k <= khi0) ? (double)(A[i_ * 2100 + k]) : (double)0;
      ld0_1[u] = ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && k <= khi0) ? (double)(x[k]) : (double)0;
    }
    #pragma unroll
    for (int u = 0; u < 4; u++) {
      const int k = klo0 + 0 + slice + u * 32;
      double t = (double)-0.0;
      if ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && k <= khi0)
        t = t + (ld0_0[u] * ld0_1[u]);
      sum0[(0 / 128 % 2) * 1032 + row * 129 + slice + u * 32] = t;
    }
    if (128 < n_0) {
      #pragma unroll
      for (int u = 0; u < 4; u++) {
        const int k = klo0 + 128 + slice + u * 32;
        ld0_0[u] = ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && k <= khi0) ? (double)(A[i_ * 2100 + k]) : (double)0;
        ld0_1[u] = ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && k <= khi0) ? (double)(x[k]) : (double)0;
      }
    }
  }
  __syncthreads();
  for (int base = 0; base < n_0; base += 128) {
    if (!adder && base + 128 < n_0) {
      #pragma unroll
      for (int u = 0; u < 4; u++) {
        const int k = klo0 + (base + 128) + slice + u * 32;
        double t = (double)-0.0;
        if ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && k <= khi0)
          t = t + (ld0_0[u] * ld0_1[u]);
        sum0[((base + 128) / 128 % 2) * 1032 + row * 129 + slice + u * 32] = t;
      }
      if (base + 256 < n_0) {
        #pragma unroll
        for (int u = 0; u < 4; u++) {
          const int k = klo0 + (base + 256) + slice + u * 32;
          ld0_0[u] = ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && k <= khi0) ? (double)(A[i_ * 2100 + k]) : (double)0;
          ld0_1[u] = ((i_ >= 0) && (-1 * i_ + m - 1 >= 0) && k <= khi0) ? (double)(x[k]) : (double)0;
        }
      }
    }
    if (owner && (i_ >= 0) && (-1 * i_ + m - 1 >= 0) && klo0 <= khi0) {
      if (base + 128 <= khi0 - klo0 + 1) {
        #pragma unroll
        for (int q = 0; q < 128; q++)
          p0 = p0 + sum0[(base / 128 % 2) * 1032 + row * 129 + q];
      } else {
        for (int q = 0; base + q <= khi0 - klo0; q++)
          p0 = p0 + sum0[(base / 128 % 2) * 1032 + row * 129 + q];
      }
    }
    __syncthreads();
  }
  if (owner && (i_ >= 0) && (-1 * i_ + m - 1 >= 0) && klo0 <= khi0)
    tmp[i_] = p0;
}

extern "C" __global__ void __launch_bounds__(528) kernel_atax_scop0_kernel1(int n, int m, double *__restrict__ y, const double *__restrict__ tmp, const double *__restrict__ A)
{
  POLYCU_SHARED(int, terms0, 16);
  const bool adder = threadIdx.y == 32;
  const int slice = threadIdx.y, row = threadIdx.x;
  const bool owner = adder && row < 16;
  const int i_ = (0) + 16 * (int)blockIdx.x + row;
  if (owner) {
    if ((i_ >= 0) && (-1 * i_ + n - 1 >= 0))
      y[i_] = 0;
  }
  POLYCU_SHARED(double, sum0, 4096);
  const int klo0 = -(0), khi0 = (m - 1);
  double p0 = (double)-0.0;
  if (owner) {
    terms0[row] = ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && klo0 <= khi0) ? khi0 - klo0 + 1 : 0;
    if ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && klo0 <= khi0)
      p0 = y[i_];
  }
  __syncthreads();
  int n_0 = 0;
  for (int q = 0; q < 16; q++)
    n_0 = terms0[q] > n_0 ? terms0[q] : n_0;
  double ld0_0[4];
  double ld0_1[4];
  if (!adder && 0 < n_0) {
    #pragma unroll
    for (int u = 0; u < 4; u++) {
      const int k = klo0 + 0 + slice + u * 32;
      ld0_0[u] = ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && k <= khi0) ? (double)(A[k * 2100 + i_]) : (double)0;
      ld0_1[u] = ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && k <= khi0) ? (double)(tmp[k]) : (double)0;
    }
    #pragma unroll
    for (int u = 0; u < 4; u++) {
      const int k = klo0 + 0 + slice + u * 32;
      double t = (double)-0.0;
      if ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && k <= khi0)
        t = t + (ld0_0[u] * ld0_1[u]);
      sum0[(0 / 128 % 2) * 2048 + (slice + u * 32) * 16 + row] = t;
    }
    if (128 < n_0) {
      #pragma unroll
      for (int u = 0; u < 4; u++) {
        const int k = klo0 + 128 + slice + u * 32;
        ld0_0[u] = ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && k <= khi0) ? (double)(A[k * 2100 + i_]) : (double)0;
        ld0_1[u] = ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && k <= khi0) ? (double)(tmp[k]) : (double)0;
      }
    }
  }
  __syncthreads();
  for (int base = 0; base < n_0; base += 128) {
    if (!adder && base + 128 < n_0) {
      #pragma unroll
      for (int u = 0; u < 4; u++) {
        const int k = klo0 + (base + 128) + slice + u * 32;
        double t = (double)-0.0;
        if ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && k <= khi0)
          t = t + (ld0_0[u] * ld0_1[u]);
        sum0[((base + 128) / 128 % 2) * 2048 + (slice + u * 32) * 16 + row] = t;
      }
      if (base + 256 < n_0) {
        #pragma unroll
        for (int u = 0; u < 4; u++) {
          const int k = klo0 + (base + 256) + slice + u * 32;
          ld0_0[u] = ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && k <= khi0) ? (double)(A[k * 2100 + i_]) : (double)0;
          ld0_1[u] = ((i_ >= 0) && (-1 * i_ + n - 1 >= 0) && k <= khi0) ? (double)(tmp[k]) : (double)0;
        }
      }
    }
    if (owner && (i_ >= 0) && (-1 * i_ + n - 1 >= 0) && klo0 <= khi0) {
      if (base + 128 <= khi0 - klo0 + 1) {
        #pragma unroll
        for (int q = 0; q < 128; q++)
          p0 = p0 + sum0[(base / 128 % 2) * 2048 + (q) * 16 + row];
      } else {
        for (int q = 0; base + q <= khi0 - klo0; q++)
          p0 = p0 + sum0[(base / 128 % 2) * 2048 + (q) * 16 + row];
      }
    }
    __syncthreads();
  }
  if (owner && (i_ >= 0) && (-1 * i_ + n - 1 >= 0) && klo0 <= khi0)
    y[i_] = p0;
}


