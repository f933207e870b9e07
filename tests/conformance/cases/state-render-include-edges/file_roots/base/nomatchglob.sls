include:
  - "zz*"
n: test.nop
