"""vyre-conform: the conformance proof system (docs/conform.md).

```python
from vyre import conform
cert = conform.certify(backend="wgpu", ops=["primitive.*"], strength="fast")
cert.level, cert.failures, cert.to_json(), cert.to_human()
```

A certificate states, for one backend, that every selected op satisfies its
declared algebraic laws (exhaustively on u8, witnessed on seeded random u32;
on the CPU reference and through the backend), that the backend's evaluation of
each op agrees with the op's CPU reference and with the reference interpreter,
that it is deterministic, and that every counterexample ever found (the
regression corpus) stays fixed. Counterexamples are shrunk before they are
reported.
"""

from __future__ import annotations

from vyre.conform.backends import ConformBackend, InterpBackend, WgpuBackend, backend_named
from vyre.conform.certificate import Certificate, CertificateError, load_certificate, verify_certificate
from vyre.conform.findings import Failure, Obligation
from vyre.conform.independence import IndependenceError, check_oracle, same_function
from vyre.conform.kinds import CheckKind, Level, ObligationStrength, Target, Track
from vyre.conform.options import CertifyOptions
from vyre.conform.plan import SUITE_VERSION, PlanError
from vyre.conform.shrink import shrink
from vyre.conform.strength import STRENGTHS, Strength, StrengthName
from vyre.conform.suite import DEFAULT_SEED, certify, certify_with, merge

__all__ = [
    "DEFAULT_SEED",
    "STRENGTHS",
    "SUITE_VERSION",
    "Certificate",
    "CertificateError",
    "CertifyOptions",
    "CheckKind",
    "ConformBackend",
    "Failure",
    "IndependenceError",
    "InterpBackend",
    "Level",
    "Obligation",
    "ObligationStrength",
    "PlanError",
    "Strength",
    "StrengthName",
    "Target",
    "Track",
    "WgpuBackend",
    "backend_named",
    "certify",
    "certify_with",
    "check_oracle",
    "load_certificate",
    "merge",
    "same_function",
    "shrink",
    "verify_certificate",
]
