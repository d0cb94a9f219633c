#!/usr/bin/env python3
"""polycu's differential tester (issue 10): random affine C programs, compiled by
polycu, emulated on the CPU and built with nvcc, compared with gcc's build.

    scripts/fuzz.py --count 2000 --seed 0 --jobs 16 --out out/fuzz
    scripts/fuzz.py --minimise out/fuzz/mismatch/17.c
    scripts/fuzz.py --run tests/data/fuzz_repro/*.c

A thin wrapper: the fuzzer is the library module polycu.fuzz (docs/fuzz.md).
"""
import sys

from polycu.fuzz.cli import main

if __name__ == "__main__":
    sys.exit(main())
