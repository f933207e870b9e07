g1:
  test.nop:
    - require_in:
      - test: main_state
extend:
  keep_state:
    test:
      - comment: from excluded glob1
