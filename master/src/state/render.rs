//! Render stage: SLS references resolved in `file_roots`, rendered once each,
//! `include` (plain, relative, glob, `env: sls`), `exclude`, `extend`,
//! `__sls__`/`__env__` injection and auto `order` → high data.
