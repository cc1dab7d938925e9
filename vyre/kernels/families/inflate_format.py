"""The data layout of the GPU inflater (`inflate_program.py`): Huffman table
entries, the per-stream table region, the constant tables the host uploads
(RFC 1951 §3.2.5-3.2.7) and the decoder's state words.

**Table entries** (one u32, zlib's `code` in one word): bits 0-3 the code's
length L (0: a *hole*, no code of at most the root's bits starts with these
bits: a longer code does, or none), bits 4-5 the kind (`LITERAL`: the value is
a byte, or a code-length symbol; `BASE`: a length or distance base with
`extra` bits at 8-11; `END`: end of block; `INVALID`: symbols 286/287 and
distances 30/31 of the fixed code), bits 16-31 the value.

**Tables**: a root table of 2^R entries indexed by the next R bits of the
stream (least significant first), R = `LIT_ROOT` (9) for literal/length
codes and `DIST_ROOT` (7) for distances; codes longer than R leave holes,
decoded canonically from the per-length `first code`, `count` and `first
index` words and the entries sorted by (length, symbol) (`slow path`). The
fixed code's tables (no long codes) are at the start of the `tables` buffer;
every stream has a region of `REGION` words for its dynamic tables.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "BASE",
    "CL_LENGTHS",
    "COUNT",
    "DIST_SORTED",
    "DIST_TABLE",
    "FIRST",
    "INDEX",
    "LENGTHS",
    "LIT_SORTED",
    "LIT_TABLE",
    "META",
    "META_WORDS",
    "NEXT",
    "CL_ORDER",
    "CL_ROOT",
    "CL_SYMBOLS",
    "DIST_ROOT",
    "DIST_SYMBOLS",
    "END",
    "FIXED_DIST",
    "FIXED_LIT",
    "FIXED_WORDS",
    "INVALID",
    "INVALID_ONE_BIT",
    "LITERAL",
    "LIT_ROOT",
    "LIT_SYMBOLS",
    "MAXBITS",
    "REGION",
    "SYMTAB",
    "SYMTAB_CL",
    "SYMTAB_DIST",
    "SYMTAB_ORDER",
    "entry",
    "fixed_tables",
    "root_table",
    "symtab",
]

MAXBITS = 15
LIT_ROOT = 9
DIST_ROOT = 7
CL_ROOT = 7
"""Root table bits (code-length codes are at most 7 bits: no holes)."""

LITERAL, BASE, END, INVALID = 0, 1, 2, 3

LIT_SYMBOLS = 288
DIST_SYMBOLS = 32
CL_SYMBOLS = 19
CL_ORDER = (16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15)
"""RFC 1951 §3.2.7: the order of the code-length code lengths."""


def entry(length: int, kind: int, value: int = 0, extra: int = 0) -> int:
    return length | kind << 4 | extra << 8 | value << 16


INVALID_ONE_BIT = entry(1, INVALID)
"""What a hole with no longer code decodes to: zlib's invalid code of one bit."""


def _length_bases() -> list[tuple[int, int]]:
    bases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    extras = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
    return list(zip(bases, extras))


def _distance_bases() -> list[tuple[int, int]]:
    bases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
             4097, 6145, 8193, 12289, 16385, 24577]
    extras = [0, 0, 0, 0] + [k // 2 for k in range(2, 28)]
    return list(zip(bases, extras))


def symtab() -> np.ndarray:
    """The entry templates (length 0) of every symbol, then the code-length order:
    literal/length 0-287 at `SYMTAB` (0), distances 0-31 at `SYMTAB_DIST`,
    code-length symbols 0-18 at `SYMTAB_CL`, `CL_ORDER` at `SYMTAB_ORDER`."""
    words: list[int] = []
    for sym in range(LIT_SYMBOLS):
        if sym < 256:
            words.append(entry(0, LITERAL, sym))
        elif sym == 256:
            words.append(entry(0, END))
        elif sym <= 285:
            base, extra = _length_bases()[sym - 257]
            words.append(entry(0, BASE, base, extra))
        else:
            words.append(entry(0, INVALID))
    for sym in range(DIST_SYMBOLS):
        if sym < 30:
            base, extra = _distance_bases()[sym]
            words.append(entry(0, BASE, base, extra))
        else:
            words.append(entry(0, INVALID))
    words += [entry(0, LITERAL, sym) for sym in range(CL_SYMBOLS)]
    words += list(CL_ORDER)
    return np.array(words, dtype=np.uint32)


SYMTAB, SYMTAB_DIST, SYMTAB_CL, SYMTAB_ORDER = 0, LIT_SYMBOLS, LIT_SYMBOLS + DIST_SYMBOLS, LIT_SYMBOLS + DIST_SYMBOLS + CL_SYMBOLS


def root_table(lengths: Sequence[int], templates: np.ndarray, bits: int) -> np.ndarray:
    """The root table of a complete code whose codes are all at most `bits`
    long (the fixed codes): entry = template | length at every index whose low
    L bits are the code, bit-reversed (RFC 1951 §3.2.2 canonical codes)."""
    table = np.zeros(1 << bits, dtype=np.uint32)
    count = [0] * (MAXBITS + 2)
    for length in lengths:
        count[length] += 1
    count[0] = 0
    code, first = 0, [0] * (MAXBITS + 2)
    for length in range(1, MAXBITS + 1):
        code = (code + count[length - 1]) << 1
        first[length] = code
    for sym, length in enumerate(lengths):
        if length == 0:
            continue
        assert length <= bits
        value = first[length]
        first[length] += 1
        reversed_code = int(f"{value:0{length}b}"[::-1], 2)
        table[reversed_code :: 1 << length] = int(templates[sym]) | length
    return table


def fixed_tables() -> np.ndarray:
    """The fixed code's literal/length root table (2^LIT_ROOT entries) then its
    distance root table (2^DIST_ROOT), the first FIXED_WORDS words of `tables`."""
    table = symtab()
    lit = [8] * 144 + [9] * 112 + [7] * 24 + [8] * 8
    return np.concatenate(
        [root_table(lit, table[SYMTAB:], LIT_ROOT), root_table([5] * 32, table[SYMTAB_DIST:], DIST_ROOT)]
    )


FIXED_LIT = 0
FIXED_DIST = 1 << LIT_ROOT
FIXED_WORDS = (1 << LIT_ROOT) + (1 << DIST_ROOT)

# -- the region of one stream (word offsets from its start) ----------------------

LIT_TABLE = 0
"""Literal/length root table (2^LIT_ROOT); the code-length table (2^CL_ROOT)
lives here while the code lengths are read."""
DIST_TABLE = LIT_TABLE + (1 << LIT_ROOT)
LIT_SORTED = DIST_TABLE + (1 << DIST_ROOT)
"""Entries sorted by (length, symbol): literal/length (code-length codes while
they are read), then distances."""
DIST_SORTED = LIT_SORTED + LIT_SYMBOLS
META = DIST_SORTED + DIST_SYMBOLS
"""Per table (code lengths, literal/length, distance: 64 words each), per code
length L: first code at +L, first sorted index at +16+L, count at +32+L, next
free sorted index at +48+L."""
META_WORDS = 64
FIRST, INDEX, COUNT, NEXT = 0, 16, 32, 48
LENGTHS = META + 3 * META_WORDS
"""Code lengths as nibbles (8 a word): literal/length then distance, 320 at most."""
CL_LENGTHS = LENGTHS + 40
"""The 19 code-length code lengths as nibbles (3 words)."""
REGION = CL_LENGTHS + 4
"""Words of one stream's table region."""

