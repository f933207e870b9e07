a:
  test.nop:
    - require:
      - test: b
b:
  test.nop:
    - require:
      - test: c
c:
  test.nop:
    - require:
      - test: a
f:
  test.nop
