include:
  - b
t1:
  test.nop:
    - comment: one
    - use:
      - test: b1
    - use_in:
      - test: b2
    - prereq_in:
      - test: b3
extend:
  b1:
    test:
      - comment: extended-b1
      - require:
        - test: t1
  b4-name:
    test:
      - order: last
