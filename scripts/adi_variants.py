"""Session 39's hand variants of a generated adi.cu (docs/results/staging.md).

    python3 scripts/adi_variants.py MODE IN.cu OUT.cu

MODE ``pipeline``: every staged strip double-buffered (the next strip's copies issued
before this one's wait).  ``C``: p's and q's divisions of the forward sweeps through
``polycu_ddiv`` (scripts/division_probe.cu: straight-line, verified exactly, '/' when
the check fails).  ``D``: both quotients by the fast path, one check for the two,
both divided with '/' when it fails.  The patterns are the generated text's; the
script counts its rewrites on stderr.
"""
from __future__ import annotations

import re
import sys

STRIP = re.compile(
    r"(?P<ind> *)for \(int (?P<s>c1\d\d) = (?P<lo>[^;]+); (?P=s) <= (?P<hi>[^;]+); (?P=s) \+= 64\) \{\n"
    r"(?P=ind)  for \(int (?P<i>c\d+) = (?P=s); (?P=i) <= min\((?P=s) \+ 63, (?P=hi)\); (?P=i) \+= 1\) \{\n"
    r"(?P<copies>(?:(?P=ind)    POLYCU_COPY_ASYNC\(.*\n)+)"
    r"(?P=ind)  \}\n"
    r"(?P=ind)  POLYCU_COPY_WAIT\(\);\n"
    r"(?P<body>(?P=ind)  for \(int (?P=i) = (?P=s); .*\n(?:(?P=ind)    .*\n)+(?P=ind)  \}\n)"
    r"(?P=ind)\}\n")

DIVISIONS = re.compile(
    r"(?P<ind> *)(?P<p>p\[[^\n]*\]) = \((?P<x1>-r\d\[0\])\) / \(\((?P<den>r\d\[0\] \* r5\) \+ r\d\[0\])\);\n"
    r"(?P=ind)r6 = r5;\n(?P=ind)r5 = (?P=p);\n"
    r"(?P=ind)(?P<q>q\[[^\n]*\]) = (?P<x2>.*) / \(\(r\d\[0\] \* r6\) \+ r\d\[0\]\);\n"
    r"(?P=ind)r7 = (?P=q);\n")


def pipeline(src: str) -> tuple[str, int]:
    """Strip k + 1's copies into the other half of each buffer before strip k's wait."""
    buffers: set[str] = set()

    def rewrite(m: re.Match) -> str:
        ind, s, lo, hi, i = m["ind"], m["s"], m["lo"], m["hi"], m["i"]
        names = re.findall(r"POLYCU_COPY_ASYNC\((s\d+)\[", m["copies"])
        buffers.update(names)

        def indexed(text: str, half: str, shift: str) -> str:
            for name in names:
                text = text.replace(f"{name}[(t0) * 64 + ({i} - {s})]",
                                    f"{name}[{half} * 256 + (t0) * 64 + ({i} - {s}{shift})]")
            return text
        first = m["copies"].replace(f"({i} - {s})", f"({i} - ({lo}))")
        return (f"{ind}for (int {i} = {lo}; {i} <= min({lo} + 63, {hi}); {i} += 1) {{\n{first}{ind}}}\n"
                f"{ind}__pipeline_commit();\n"
                f"{ind}for (int {s} = {lo}, k = 0; {s} <= {hi}; {s} += 64, k ^= 1) {{\n"
                f"{ind}  for (int {i} = {s} + 64; {i} <= min({s} + 127, {hi}); {i} += 1) {{\n"
                f"{indexed(m['copies'], '(k ^ 1)', ' - 64')}{ind}  }}\n"
                f"{ind}  __pipeline_commit();\n{ind}  __pipeline_wait_prior(1);\n"
                f"{indexed(m['body'], 'k', '')}{ind}}}\n")
    out, count = STRIP.subn(rewrite, src)
    for name in buffers:
        out = out.replace(f"POLYCU_SHARED(double, {name}, 256);", f"POLYCU_SHARED(double, {name}, 512);")
    return out, count


def divisions(src: str, joint: bool) -> tuple[str, int]:
    """p = -c / den and q = num / den through the verified straight-line division."""
    probe = open("scripts/division_probe.cu").read()
    header = probe[probe.index("__device__ __forceinline__ double polycu_ddiv_fast"):
                   probe.index("#include <cstdio>")]
    src = src.replace("#define POLYCU_VIRTUAL(v, n) (v)", "#define POLYCU_VIRTUAL(v, n) (v)\n" + header)

    def rewrite(m: re.Match) -> str:
        i, den, x1, x2, p, q = m["ind"], "(" + m["den"], f"({m['x1']})", m["x2"], m["p"], m["q"]
        if not joint:
            return (f"{i}{p} = polycu_ddiv({x1}, {den});\n{i}r6 = r5;\n{i}r5 = {p};\n"
                    f"{i}{q} = polycu_ddiv({x2}, {den.replace('r5', 'r6')});\n{i}r7 = {q};\n")
        return (f"{i}{{ const double dn = {den}, x1 = {x1}, x2 = {x2};\n"
                f"{i}  bool ok = true;\n"
                f"{i}  double f1 = polycu_ddiv_fast(x1, dn, ok), f2 = polycu_ddiv_fast(x2, dn, ok);\n"
                f"{i}  if (!ok) {{ f1 = x1 / dn; f2 = x2 / dn; }}\n"
                f"{i}  {p} = f1; r6 = r5; r5 = f1; {q} = f2; r7 = f2; }}\n")
    return DIVISIONS.subn(rewrite, src)


if __name__ == "__main__":
    mode, source, target = sys.argv[1:4]
    text = open(source).read()
    text, n = pipeline(text) if mode == "pipeline" else divisions(text, mode == "D")
    print(f"{mode}: {n} rewrites", file=sys.stderr)
    open(target, "w").write(text)
