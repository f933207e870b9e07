p1:
  test.nop
extend:
  keep_state:
    test:
      - size: from excluded plain
