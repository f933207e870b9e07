t1:
  test.nop:
    - names:
      - n1
      - n2:
        - order: first
      - n3:
        - order: -2
    - order: 5
t2:
  test.nop:
    - order: true
t3:
  test.nop:
    - order: 1.5
    - names: [x, y]
t4:
  test.nop:
    - order: '12'
t5:
  test.succeed_with_changes:
    - fun: nop
    - name: 17
    - __id__: fake
t6:
  test.nop:
    - comment: a
    - comment: b
    - name: n6
    - name: n6b
t7:
  test.nop:
    - require:
      - test: t6
    - require:
      - test: t5
  file.managed:
    - name: /tmp/x
