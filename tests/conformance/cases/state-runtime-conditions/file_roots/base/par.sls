p1:
  test.succeed_with_changes:
    - parallel: True
p2:
  test.nop:
    - parallel: True
    - require:
      - test: p1
p3:
  test.nop:
    - parallel: True
    - unless: "true"
