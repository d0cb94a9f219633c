/*
 * Counting replacement for polybench.h, used only by
 * tests/test_polybench_flops.py.  A kernel compiled as C++ with
 * -I tests/data/flopcount picks up this header instead of the real
 * harness: DATA_TYPE becomes flopcount::Value, a double that counts the
 * operations applied to it while the kernel runs (between
 * polybench_start_instruments and polybench_stop_instruments) and
 * records which array elements the kernel touches.  The kernel sources
 * stay unchanged, valid C99.
 *
 * What counts as one operation (the convention of docs/polybench.md):
 *   - a binary +, -, *, / with at least one DATA_TYPE operand, compound
 *     assignments included;
 *   - SQRT_FUN, EXP_FUN, POW_FUN;
 *   - a comparison <, <=, >, >= between DATA_TYPE values (the select of a
 *     min or max).
 * Unary minus and conversions are free.  A min/max written as the macro
 * `a OP b ? a : b` evaluates b twice when the comparison is false; the
 * second evaluation recomputes a value already counted, so it is not
 * counted again (see Value's comparison operators).
 *
 * At polybench_print_instruments the program prints one line on stdout:
 *   flops=<n> elements=<m> reevaluations=<k>
 * elements is the number of distinct DATA_TYPE array elements read or
 * written (arrays allocated with POLYBENCH_*_ARRAY_DECL; scalars and
 * kernel-local arrays are not counted).
 */
#ifndef POLYBENCH_H
#define POLYBENCH_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <unordered_set>
#include <vector>

namespace flopcount {

/* Identifies one evaluation of an operation, so that a re-evaluation of
   the same expression can be recognised: the operator, and for each
   operand its address (0 for a plain number), the operation that
   produced it and its value. */
struct OpKey {
  int op;
  const void *addr[2];
  std::uint64_t origin[2];
  double value[2];

  bool operator==(const OpKey &o) const {
    return op == o.op && addr[0] == o.addr[0] && addr[1] == o.addr[1] &&
           origin[0] == o.origin[0] && origin[1] == o.origin[1] &&
           value[0] == o.value[0] && value[1] == o.value[1];
  }
};

struct Region {
  const char *begin;
  const char *end;
};

struct State {
  bool counting = false;
  std::uint64_t flops = 0;
  std::uint64_t reevaluations = 0;
  std::uint64_t next_origin = 0;
  OpKey last{};
  std::uint64_t last_origin = 0;
  /* Set by a false comparison whose right operand is the value the
     previous operation just produced: the next operation is then the
     conditional expression recomputing that operand. */
  bool reevaluation_pending = false;
  std::vector<Region> arrays;
  std::unordered_set<const void *> touched;
};

inline State &state() {
  static State s;
  return s;
}

/* Records an access to *p if p lies in a benchmark array. */
inline void touch(const void *p) {
  State &s = state();
  if (!s.counting)
    return;
  const char *c = static_cast<const char *>(p);
  for (const Region &r : s.arrays)
    if (c >= r.begin && c < r.end) {
      s.touched.insert(p);
      return;
    }
}

struct Value {
  double v;
  std::uint64_t origin; /* operation that produced v; 0 for an input */

  Value() = default;
  Value(double x) : v(x), origin(0) {}
  Value(const Value &o) : v(o.v), origin(o.origin) { touch(&o); }
  Value &operator=(const Value &o) {
    touch(&o);
    touch(this);
    v = o.v;
    origin = o.origin;
    return *this;
  }
};

enum { ADD, SUB, MUL, DIV, SQRT, EXP, POW };

struct Operand {
  const void *addr;
  std::uint64_t origin;
  double value;
};

inline Operand operand(const Value &x) {
  touch(&x);
  return Operand{&x, x.origin, x.v};
}

inline Operand operand(double x) { return Operand{nullptr, 0, x}; }

/* Counts one operation (unless it re-evaluates the previous one) and
   returns the origin tag of its result. */
inline std::uint64_t record(int op, Operand a, Operand b) {
  State &s = state();
  OpKey key{op, {a.addr, b.addr}, {a.origin, b.origin}, {a.value, b.value}};
  bool again = s.reevaluation_pending && key == s.last;
  s.reevaluation_pending = false;
  if (again) {
    if (s.counting)
      s.reevaluations++;
    return s.last_origin;
  }
  if (s.counting)
    s.flops++;
  s.last = key;
  s.last_origin = ++s.next_origin;
  return s.last_origin;
}

inline double apply(int op, double a, double b) {
  switch (op) {
  case ADD: return a + b;
  case SUB: return a - b;
  case MUL: return a * b;
  default: return a / b;
  }
}

template <class A, class B> Value binary(int op, const A &a, const B &b) {
  Operand x = operand(a), y = operand(b);
  Value r;
  r.origin = record(op, x, y);
  r.v = apply(op, x.value, y.value);
  return r;
}

inline Value operator+(const Value &a, const Value &b) { return binary(ADD, a, b); }
inline Value operator+(const Value &a, double b) { return binary(ADD, a, b); }
inline Value operator+(double a, const Value &b) { return binary(ADD, a, b); }
inline Value operator-(const Value &a, const Value &b) { return binary(SUB, a, b); }
inline Value operator-(const Value &a, double b) { return binary(SUB, a, b); }
inline Value operator-(double a, const Value &b) { return binary(SUB, a, b); }
inline Value operator*(const Value &a, const Value &b) { return binary(MUL, a, b); }
inline Value operator*(const Value &a, double b) { return binary(MUL, a, b); }
inline Value operator*(double a, const Value &b) { return binary(MUL, a, b); }
inline Value operator/(const Value &a, const Value &b) { return binary(DIV, a, b); }
inline Value operator/(const Value &a, double b) { return binary(DIV, a, b); }
inline Value operator/(double a, const Value &b) { return binary(DIV, a, b); }

inline Value operator-(const Value &a) {
  touch(&a);
  Value r;
  r.v = -a.v;
  r.origin = 0;
  return r;
}

template <class B> Value &operator+=(Value &a, const B &b) { return a = a + b; }
template <class B> Value &operator-=(Value &a, const B &b) { return a = a - b; }
template <class B> Value &operator*=(Value &a, const B &b) { return a = a * b; }
template <class B> Value &operator/=(Value &a, const B &b) { return a = a / b; }

/* A comparison is one operation.  `a OP b ? a : b` (how the min/max of
   floyd-warshall and nussinov are written) evaluates b a second time when
   the comparison is false; if b is the result of the operation just
   counted, that recomputation is marked as expected. */
template <class A, class B> bool compare(bool result, const A &a, const B &b) {
  operand(a); /* records the access */
  Operand y = operand(b);
  State &s = state();
  if (s.counting)
    s.flops++;
  s.reevaluation_pending = !result && y.origin != 0 && y.origin == s.last_origin;
  return result;
}

#define FLOPCOUNT_COMPARISON(OP)                                               \
  inline bool operator OP(const Value &a, const Value &b) {                    \
    return compare(a.v OP b.v, a, b);                                          \
  }                                                                            \
  inline bool operator OP(const Value &a, double b) {                          \
    return compare(a.v OP b, a, b);                                            \
  }                                                                            \
  inline bool operator OP(double a, const Value &b) {                          \
    return compare(a OP b.v, a, b);                                            \
  }
FLOPCOUNT_COMPARISON(<)
FLOPCOUNT_COMPARISON(<=)
FLOPCOUNT_COMPARISON(>)
FLOPCOUNT_COMPARISON(>=)
#undef FLOPCOUNT_COMPARISON

inline Value unary(int op, const Value &a, double (*f)(double)) {
  Operand x = operand(a);
  Value r;
  r.origin = record(op, x, operand(0.0));
  r.v = f(x.value);
  return r;
}

inline Value sqrt_(const Value &a) { return unary(SQRT, a, std::sqrt); }
inline Value exp_(const Value &a) { return unary(EXP, a, std::exp); }
inline Value pow_(const Value &a, const Value &b) {
  Operand x = operand(a), y = operand(b);
  Value r;
  r.origin = record(POW, x, y);
  r.v = std::pow(x.value, y.value);
  return r;
}

/* Arrays are value-initialised (C's uninitialised reads would be
   undefined behaviour here too), and those of DATA_TYPE are registered
   so that accesses to them are recorded. */
template <class T> void *allocate(unsigned long long n) {
  T *p = static_cast<T *>(std::malloc(n * sizeof(T)));
  if (p == nullptr) {
    std::fprintf(stderr, "flopcount: out of memory\n");
    std::exit(1);
  }
  for (unsigned long long i = 0; i < n; i++)
    new (p + i) T();
  if (std::is_same<T, Value>::value) {
    const char *c = reinterpret_cast<const char *>(p);
    state().arrays.push_back(Region{c, c + n * sizeof(T)});
  }
  return p;
}

inline void release(void *p) {
  std::vector<Region> &arrays = state().arrays;
  for (std::size_t i = 0; i < arrays.size(); i++)
    if (arrays[i].begin == p) {
      arrays.erase(arrays.begin() + static_cast<long>(i));
      break;
    }
  std::free(p);
}

inline void start() {
  State &s = state();
  s.flops = 0;
  s.reevaluations = 0;
  s.touched.clear();
  s.reevaluation_pending = false;
  s.counting = true;
}

inline void stop() { state().counting = false; }

inline void report() {
  State &s = state();
  std::printf("flops=%llu elements=%llu reevaluations=%llu\n",
              static_cast<unsigned long long>(s.flops),
              static_cast<unsigned long long>(s.touched.size()),
              static_cast<unsigned long long>(s.reevaluations));
}

} // namespace flopcount

/* print_array stays compiled (it is never run): printing a Value. */
inline int fprintf(FILE *f, const char *, const flopcount::Value &x) {
  return std::fprintf(f, "%g ", x.v);
}

#define DATA_TYPE flopcount::Value
#define DATA_PRINTF_MODIFIER "%g "
#define SCALAR_VAL(x) x
#define SQRT_FUN(x) flopcount::sqrt_(x)
#define EXP_FUN(x) flopcount::exp_(x)
#define POW_FUN(x, y) flopcount::pow_(x, y)

#define POLYBENCH_LOOP_BOUND(constant, runtime) runtime

#define POLYBENCH_1D(var, d1, dd1) var[d1]
#define POLYBENCH_2D(var, d1, d2, dd1, dd2) var[d1][d2]
#define POLYBENCH_3D(var, d1, d2, d3, dd1, dd2, dd3) var[d1][d2][d3]

#define POLYBENCH_ALLOC_1D_ARRAY(n1, type)                                     \
  (type(*)[n1]) flopcount::allocate<type>(n1)
#define POLYBENCH_ALLOC_2D_ARRAY(n1, n2, type)                                 \
  (type(*)[n1][n2]) flopcount::allocate<type>((unsigned long long)(n1) * (n2))
#define POLYBENCH_ALLOC_3D_ARRAY(n1, n2, n3, type)                             \
  (type(*)[n1][n2][n3]) flopcount::allocate<type>(                             \
      (unsigned long long)(n1) * (n2) * (n3))
#define POLYBENCH_1D_ARRAY_DECL(var, type, d1, dd1)                            \
  type(*var)[d1] = POLYBENCH_ALLOC_1D_ARRAY(d1, type)
#define POLYBENCH_2D_ARRAY_DECL(var, type, d1, d2, dd1, dd2)                   \
  type(*var)[d1][d2] = POLYBENCH_ALLOC_2D_ARRAY(d1, d2, type)
#define POLYBENCH_3D_ARRAY_DECL(var, type, d1, d2, d3, dd1, dd2, dd3)          \
  type(*var)[d1][d2][d3] = POLYBENCH_ALLOC_3D_ARRAY(d1, d2, d3, type)
#define POLYBENCH_ARRAY(x) *x
#define POLYBENCH_FREE_ARRAY(x) flopcount::release((void *)x)

#define POLYBENCH_DUMP_TARGET stderr
#define POLYBENCH_DUMP_START std::fprintf(stderr, "==BEGIN DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_FINISH std::fprintf(stderr, "==END   DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_BEGIN(s) std::fprintf(stderr, "begin dump: %s", s)
#define POLYBENCH_DUMP_END(s) std::fprintf(stderr, "\nend   dump: %s\n", s)

/* Keeps print_array referenced without running it. */
#define polybench_prevent_dce(func)                                            \
  if (argc > 42 && !strcmp(argv[0], ""))                                       \
  func

#define polybench_start_instruments flopcount::start()
#define polybench_stop_instruments flopcount::stop()
#define polybench_print_instruments flopcount::report()

#endif /* POLYBENCH_H */
