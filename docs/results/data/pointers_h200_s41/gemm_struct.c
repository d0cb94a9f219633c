#ifdef LARGE_DATASET
#define C_ROWS 2000
#define C_COLS 2000
#define A_COLS 2000
#define B_COLS 2000
#else
#define C_ROWS 64
#define C_COLS 64
#define A_COLS 64
#define B_COLS 64
#endif
typedef struct { int rows, cols; double *data; } mat;
void mm(mat *C, const mat *A, const mat *B)
{
#pragma scop
  for (int i = 0; i < C->rows; i++)
    for (int j = 0; j < C->cols; j++) {
      C->data[i * C->cols + j] = 0.0;
      for (int k = 0; k < A->cols; k++)
        C->data[i * C->cols + j] += A->data[i * A->cols + k] * B->data[k * B->cols + j];
    }
#pragma endscop
}
