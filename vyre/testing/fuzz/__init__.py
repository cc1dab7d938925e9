"""Fuzzers for vyre's inputs, run supervised (`python -m vyre.testing.fuzz`, `make fuzz`).

- `text`: mutated program texts through `parse_ir`, `validate`, `print_ir`
  and the wire form; allowed outcomes are a `VyreParseError`, diagnostics or a
  clean round trip,
- `wire`: mutated wire blobs (most with a repaired checksum, so that the body
  decoder sees them) through `Program.from_wire`; allowed: `WireError`, or a
  program that re-encodes to the same bytes,
- `api`: the public Python API called with wrong arguments;
  allowed: `TypeError`/`ValueError` (and `KeyError` for unknown op ids),
- `differential`: random valid programs (`vyre.testing.random_programs`) on the
  interpreter and on wgpu; their final words must be equal,
- `kernel`: kernel ops on random and malformed inputs through every entry
  point on both backends, against independent oracles; it is test code
  (`test/support/kernel_fuzz.py`, `test/support/kernel_oracles.py` of a
  checkout), so it runs from a checkout only (`base.IN_CHECKOUT`),
- `float-functions`: random float programs featuring every strict float op
  of the dialect in F32/F16/BF16 on both backends, and each op alone against
  numpy, exact rationals and MPFR (test code: `test/support/float_fuzz.py`),
- `tensor`: random `vyre.tensor` graphs on both backends against a numpy and
  rational oracle; invalid graphs must raise `ValueError` (test code:
  `test/support/tensor_fuzz.py`),
- `tensor-text`: mutated tensor IR through `vyre-opt`: located errors, no
  traceback, printed graphs a fixed point (test code:
  `test/support/tensor_text_fuzz.py`: vyre-opt is a tool, above this layer),
- `u128`: random expression trees over `u128` (every operator it has, the
  casts to and from it) on both backends against Python's integers; invalid
  programs must be refused with a validation message (test code:
  `test/support/u128_fuzz.py`, `test/support/u128_oracles.py`).

The targets are one registry, `base.TARGETS` (name, fuzzer class, share of a
timed run, test-support file, hang threshold).

`harness.run_fuzzer` checks inputs in a child process under a watchdog (an
input that takes more than `HANG_SECONDS` is a hang), shrinks every failure and
saves it to the regression corpus (`test/fuzz_corpus/<fuzzer>/`), which
`test/unit/test_fuzz_corpus.py` replays in CI forever.
"""

from __future__ import annotations

from vyre.testing.fuzz.base import FUZZERS, TARGETS, Fuzzer, FuzzerUnavailable, OracleFailure, Target, get_fuzzer

__all__ = ["FUZZERS", "TARGETS", "Fuzzer", "FuzzerUnavailable", "OracleFailure", "Target", "get_fuzzer"]
