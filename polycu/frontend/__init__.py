"""C frontend: preprocess a C file with polycu's own libc headers and parse it with pycparser."""
