b1:
  test.nop:
    - color: red
    - require:
      - test: b2
b2:
  test.nop:
    - names:
      - b2a
      - b2b
b3:
  test.nop:
    - prereq:
      - test: t1
b4:
  test.nop:
    - name: b4-name
