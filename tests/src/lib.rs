//! Test-only helpers: the conformance runner lives in tests/tests/.
