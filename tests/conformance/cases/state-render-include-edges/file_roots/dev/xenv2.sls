include:
  - base: baseonly
  - base: shared
xenv2: test.nop
