include:
  - _xenv: shared
x2: test.nop
