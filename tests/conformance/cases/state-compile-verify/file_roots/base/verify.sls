t1:
  test.nop:
    - require:
      - test: {a: b}
      - 5
      - [x]
    - watch: foo
    - names: bar
t2:
  test.succeed:
    - nop
    - nop bad
t4:
  test:
    - comment: x
t5:
  test.nop:
    - require:
      - test: t6
t6:
  test.nop:
    - require:
      - test: t5
      - test.nop: t1
    - onchanges:
      - test: x
        foo: y
t7:
  test.nop:
    - prereq:
        test: t1
    - onchanges:
      - t1
      foo: bar
t8:
  test: []
t9:
  test: just-a-string
