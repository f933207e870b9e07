include:
  - _xenv: shared
  - _xenv: baseonly
  - _xenv: nowhere
x: test.nop
