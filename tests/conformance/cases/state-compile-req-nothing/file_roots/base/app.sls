app:
  test.nop:
    - require:
      - test: not_there
    - use:
      - test: not_there_either
to_nothing:
  test.nop:
    - require_in:
      - test: ghost
