w1:
  test.succeed_with_changes:
    - watch:
      - test: w2
w2:
  test.succeed_with_changes:
    - onchanges:
      - test: w3
w3:
  test.succeed_with_changes:
    - require:
      - test: w1
