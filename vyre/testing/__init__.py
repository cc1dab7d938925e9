"""Testing support: random valid programs for differential testing of backends."""

from vyre.testing.random_programs import GeneratorConfig, RandomCase, random_case

__all__ = ["GeneratorConfig", "RandomCase", "random_case"]
