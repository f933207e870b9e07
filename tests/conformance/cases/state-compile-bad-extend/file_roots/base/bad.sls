real:
  test.nop
other_mod:
  test.nop
extend:
  missing_id:
    test:
      - comment: nope
  other_mod:
    file:
      - comment: new module on an existing ID is fine
  real:
    test:
      - require:
        - test: other_mod
broken:
  test.nop:
    - require: other_mod
