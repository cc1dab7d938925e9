"""SMT proofs of the integer ops (`vyre-conform certify --prove`, `certify(prove=True)`).

`translate` turns an op's prepared composition into bit-vector terms with the
spec's exact semantics; `models` holds an independent formal model of each
op's reference, cross-checked against the numpy reference; `solve` runs the
portfolio (z3 bit-vectors, z3 on the integer lifting, cvc5); `prove` states the
obligations (composition == reference, every declared law) and replays and
shrinks counterexamples. docs/conform.md ("`--prove`") has the background.
"""

from vyre.conform.smt.models import MODELS, model_for, register_model, unregister_model
from vyre.conform.smt.prove import (
    DEFAULT_TIMEOUT,
    ModelMismatch,
    ProofRecord,
    check_model,
    obligation_names,
    prove_obligation,
)
from vyre.conform.smt.solve import Outcome, decide, solver_versions
from vyre.conform.smt.terms import Bits, NumpyBits, Z3Bits
from vyre.conform.smt.translate import Untranslatable, translate_op

__all__ = [
    "DEFAULT_TIMEOUT",
    "MODELS",
    "Bits",
    "ModelMismatch",
    "NumpyBits",
    "Outcome",
    "ProofRecord",
    "Untranslatable",
    "Z3Bits",
    "check_model",
    "decide",
    "model_for",
    "obligation_names",
    "prove_obligation",
    "register_model",
    "solver_versions",
    "translate_op",
    "unregister_model",
]
