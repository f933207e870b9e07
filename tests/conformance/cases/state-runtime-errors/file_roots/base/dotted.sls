dotted:
  test.nop:
    - require:
      - test.nop: ok
ok:
  test.nop
